use super::*;
use crate::{
    Marker, MarkerKind, MarkerSpan, MarkerValue, MutexHold, Notification, NotificationOp, Queue,
    QueueKind, QueueOp, QueueOpKind, StrId, Task,
};

fn model() -> Model {
    let mut m = Model {
        tasks: vec![
            Task::new(1, "IDLE", TaskKind::Idle),
            Task::new(4, "worker", TaskKind::Normal),
        ],
        ..Model::default()
    };
    m.markers = [
        (1, None, MarkerKind::Event),
        (2, Some(4), MarkerKind::Value),
        (3, Some(1), MarkerKind::Event),
    ]
    .into_iter()
    .map(|(marker_id, task_id, kind)| Marker {
        marker_id,
        task_id,
        kind,
        name: format!("m{marker_id}"),
    })
    .collect();
    let msg = m.strings.intern(b"step");
    m.marker_spans.push(MarkerSpan {
        start_ns: 10,
        end_ns: 20,
        marker: 0,
        msg,
        depth: 1,
        truncated: false,
    });
    m.marker_spans.push(MarkerSpan {
        start_ns: 12,
        end_ns: 30,
        marker: 2,
        msg: StrId::EMPTY,
        depth: 0,
        truncated: true,
    });
    m.marker_values.push(MarkerValue {
        ts_ns: 15,
        marker: 1,
        value: -3,
    });
    m.queues = vec![Queue {
        queue_id: 7,
        name: "lock".into(),
        kind: QueueKind::Mutex,
        capacity: Some(1),
        high_water: 1,
    }];
    m.queue_ops.push(QueueOp {
        ts_ns: 5,
        queue: 0,
        op: QueueOpKind::Receive,
        from_isr: false,
        task: Some(1),
        core_id: 0,
        len_after: Some(0),
    });
    m.mutex_holds.push(MutexHold {
        start_ns: 5,
        end_ns: 9,
        queue: 0,
        task: 1,
        truncated: false,
    });
    m.rtos_objects.notifications.push(Notification {
        ts_ns: 8,
        task_id: 4,
        op: NotificationOp::Given,
        value: 1,
        from_isr: true,
        by_task_id: None,
        core_id: 0,
    });
    m
}

fn items(t: &Timeline, m: &Model) -> Vec<(String, Shape, String)> {
    let mut out = Vec::new();
    for layer in &t.layers {
        layer.visit(m, 0..layer.len(m), &mut |_, item| {
            let track = &t.tracks[item.track as usize];
            out.push((track.name.clone(), item.shape, item.name.text.to_owned()));
        });
    }
    out
}

#[test]
fn tracks_hang_under_their_tasks_or_groups_and_items_land_on_them() {
    let m = model();
    let t = Timeline::new(&m);
    let names: Vec<_> = t.tracks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "worker",
            "Queues",
            "lock",
            "Mutex holders",
            "lock",
            "Notifications",
            "Markers",
            "m1",
            "m2",
            "IDLE: m3"
        ]
    );
    let keys: std::collections::HashSet<_> = t.tracks.iter().map(|t| t.key).collect();
    assert_eq!(
        keys.len(),
        t.tracks.len(),
        "every track has a key of its own"
    );
    for (i, track) in t.tracks.iter().enumerate() {
        if let Parent::Track(p) = track.parent {
            assert!((p as usize) < i, "parents come first");
            assert_eq!(t.tracks[p as usize].kind, TrackKind::Group);
        }
    }
    // The idle task has no track: its marker goes to the group, named by it.
    let m3 = &t.tracks[9];
    assert_eq!(m3.parent, Parent::Track(6));
    assert_eq!(t.tracks[8].parent, Parent::Task(1));
    assert_eq!(t.top_groups(), 3);
    let slice = |start, end, depth, open| Shape::Slice {
        start,
        end,
        depth,
        open,
    };
    assert_eq!(
        items(&t, &m),
        [
            ("m1".into(), slice(10, 20, 1, false), "step".into()),
            ("IDLE: m3".into(), slice(12, 30, 0, true), "m3".into()),
            ("m2".into(), Shape::Counter(15, -3), String::new()),
            ("lock".into(), Shape::Counter(5, 0), String::new()),
            ("lock".into(), slice(5, 9, 0, false), "worker".into()),
            (
                "Notifications".into(),
                Shape::Instant(8),
                "given from ISR".into()
            ),
        ]
    );
    assert_eq!(t.rows(&m), 2 + 1 + 1 + 1 + 1);
}

#[test]
fn names_have_keys_below_their_layers_bound_and_rows_describe_themselves() {
    let m = model();
    let t = Timeline::new(&m);
    for layer in &t.layers {
        let bound = layer.name_keys(&m);
        layer.visit(&m, 0..layer.len(&m), &mut |row, item| {
            if let Some(key) = item.name.key {
                assert!((key as usize) < bound, "{key} < {bound}");
                assert_eq!(layer.name_of(&m, key), item.name.text);
            }
            let mut details = Details::new();
            layer.describe(&m, row, &mut details);
            assert!(!details.is_empty());
        });
    }
    // A row range visits only those rows.
    let spans = &t.layers[0];
    let mut rows = Vec::new();
    spans.visit(&m, 1..2, &mut |row, _| rows.push(row));
    assert_eq!(rows, [1]);
}
