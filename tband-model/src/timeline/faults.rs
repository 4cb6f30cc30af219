//! Crashes on the timeline: under the group "Faults", a track per core
//! that faulted, and a track `fault` under the task that was running;
//! each fault an instant on both, named by its kind, described by its
//! registers and what they say.

use std::ops::Range;
use std::sync::Arc;

use super::{
    rank, rows_in, task_name, Details, Item, Layer, Name, Parent, Section, TrackBuilder, TrackId,
    TrackKey, TrackKind,
};
use crate::{fault_kind_name, Model};

struct Tracks {
    /// Each faulting core's track, by core id.
    cores: Vec<(u32, TrackId)>,
    /// Each task's `fault` track, by task index.
    tasks: Vec<Option<TrackId>>,
    /// The instants' names, by kind: the name key is the kind.
    names: Vec<&'static str>,
}

pub(super) fn declare(
    m: &Model,
    task_tracks: &[Option<TrackId>],
    tracks: &mut TrackBuilder,
) -> [Arc<dyn Layer>; 2] {
    let mut t = Tracks {
        cores: Vec::new(),
        tasks: vec![None; m.tasks.len()],
        names: (0..=u8::MAX).map(fault_kind_name).collect(),
    };
    if !m.faults.is_empty() {
        let group = tracks.group("Faults");
        let mut cores: Vec<u32> = m.faults.iter().map(|f| f.core_id).collect();
        cores.sort_unstable();
        cores.dedup();
        for (i, core) in cores.into_iter().enumerate() {
            let key = TrackKey::new("fault_core", core.into(), 0);
            let name = format!("core {core}");
            let kind = TrackKind::Events(Section::Faults);
            let track = tracks.child(key, Parent::Track(group), rank(i), &name, "Faults", kind);
            t.cores.push((core, track));
        }
        for task in m.faults.iter().filter_map(|f| f.task) {
            let i = task as usize;
            let (Some(slot), Some(Some(_))) = (t.tasks.get(i), task_tracks.get(i)) else {
                continue;
            };
            if slot.is_none() {
                let key = TrackKey::new("fault_task", m.tasks[i].task_id.into(), 0);
                let kind = TrackKind::Events(Section::Faults);
                let track = tracks.child(key, Parent::Task(task), 0, "fault", "Faults", kind);
                t.tasks[i] = Some(track);
            }
        }
    }
    let t = Arc::new(t);
    [On::Core, On::Task].map(|on| -> Arc<dyn Layer> {
        Arc::new(FaultLayer {
            tracks: t.clone(),
            on,
        })
    })
}

#[derive(Clone, Copy)]
enum On {
    Core,
    Task,
}

struct FaultLayer {
    tracks: Arc<Tracks>,
    on: On,
}

impl Layer for FaultLayer {
    fn len(&self, m: &Model) -> usize {
        m.faults.len()
    }

    fn visit<'a>(
        &'a self,
        m: &'a Model,
        rows: Range<usize>,
        visit: &mut dyn FnMut(usize, Item<'a>),
    ) {
        let t = &self.tracks;
        for (i, f) in rows_in(m.faults.iter(), rows) {
            let track = match self.on {
                On::Core => (t.cores.iter())
                    .find(|(core, _)| *core == f.core_id)
                    .map(|&(_, track)| track),
                On::Task => f
                    .task
                    .and_then(|task| t.tasks.get(task as usize).copied().flatten()),
            };
            if let Some(track) = track {
                let name = Name::keyed(t.names[usize::from(f.kind)], usize::from(f.kind));
                visit(i, Item::instant(track, f.ts_ns, name));
            }
        }
    }

    fn name_keys(&self, _: &Model) -> usize {
        self.tracks.names.len()
    }

    fn name_of<'a>(&'a self, _: &'a Model, key: u32) -> &'a str {
        self.tracks.names.get(key as usize).copied().unwrap_or("")
    }

    fn describe(&self, m: &Model, row: usize, out: &mut Details) {
        let Some(f) = m.faults.get(row) else {
            return;
        };
        out.push(("cause", f.cause()));
        out.push(("core", f.core_id.to_string()));
        match f.isr.and_then(|i| m.isrs.get(i as usize)) {
            Some(isr) => out.push(("isr", isr.name.clone())),
            None => out.push(("task", task_name(m, f.task))),
        }
        out.push(("where", f.place()));
        out.push(("lr", f.lr_place()));
        if let Some(s) = f.status {
            out.push(("xpsr", format!("{:#010x}", s.xpsr)));
            out.push(("cfsr", format!("{:#010x}", s.cfsr)));
            out.push(("hfsr", format!("{:#010x}", s.hfsr)));
        }
        if let Some(a) = f.address {
            out.push(("mmfar", format!("{:#010x}", a.mmfar)));
            out.push(("bfar", format!("{:#010x}", a.bfar)));
        }
    }
}
