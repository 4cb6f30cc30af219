//! The builder of [`Objects`]: applies lifetime rules to the events of a
//! trace as they are decoded, and when the model is built, ends what is
//! still live, finds who began and ended each lifetime and reports what did
//! not add up as anomalies.

use crate::id_index::IdMap;
use crate::objects::{
    Actor, CounterValue, ObjectCounter, ObjectKey, ObjectLifetime, ObjectMark, ObjectPool, Objects,
};
use crate::rules::{Rule, RuleAction, Rules};
use crate::{Anomaly, AnomalyKind, ArgValue, EventRow, IsrKey, Model, StrId};

/// How far back through a time-sorted slice table the running task or ISR
/// of an instant is looked for (slices of other cores lie in between).
const ACTOR_SEARCH_LIMIT: usize = 256;

/// What went wrong with one rule, counted: one anomaly row per rule and problem.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Problem {
    /// The event lacks a field the rule names.
    MissingField(FieldRole),
    /// An end or mark of an object that is not live.
    NotLive,
    /// A begin of an object that is already live.
    AlreadyLive,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum FieldRole {
    Condition(usize),
    Key,
    Name,
    Pool,
    PoolName,
    Value,
}

struct Tally {
    count: u64,
    first_ns: u64,
    last_ns: u64,
    core_id: u32,
    example: String,
}

/// Applies [`Rules`] to events, one [`LifetimeBuilder::event`] call each
/// in time order, then [`LifetimeBuilder::finish`] puts the result in the model.
pub struct LifetimeBuilder<'r> {
    rules: &'r [Rule],
    /// The event names the rules match, each with its rules' indices.
    events: Vec<(&'r str, Vec<usize>)>,
    /// Per rule: its kind's index, and its counter's name index.
    rule_kind: Vec<u32>,
    rule_counter: Vec<u32>,
    counter_names: Vec<String>,
    objects: Objects,
    live: IdMap<(u32, ObjectKey), u32>,
    pools: IdMap<(u32, ObjectKey), u32>,
    counters: IdMap<(u32, u32), u32>,
    /// Busy lanes: per pool, then per kind for lifetimes without a pool.
    pool_lanes: Vec<Vec<bool>>,
    kind_lanes: Vec<Vec<bool>>,
    tallies: IdMap<(usize, Problem), Tally>,
    tally_order: Vec<(usize, Problem)>,
}

impl<'r> LifetimeBuilder<'r> {
    pub fn new(rules: &'r Rules) -> LifetimeBuilder<'r> {
        let rules = &rules.rules[..];
        let mut events: Vec<(&str, Vec<usize>)> = Vec::new();
        let mut kinds: Vec<String> = Vec::new();
        let mut counter_names: Vec<String> = Vec::new();
        let mut rule_kind = Vec::new();
        let mut rule_counter = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            match events.iter_mut().find(|(name, _)| *name == rule.event) {
                Some((_, list)) => list.push(i),
                None => events.push((&rule.event, vec![i])),
            }
            rule_kind.push(index_of(&mut kinds, &rule.kind));
            rule_counter.push(index_of(
                &mut counter_names,
                rule.counter.as_deref().unwrap_or(""),
            ));
        }
        LifetimeBuilder {
            rules,
            events,
            rule_kind,
            rule_counter,
            kind_lanes: vec![Vec::new(); kinds.len()],
            objects: Objects {
                kinds,
                ..Objects::default()
            },
            counter_names,
            live: IdMap::default(),
            pools: IdMap::default(),
            counters: IdMap::default(),
            pool_lanes: Vec::new(),
            tallies: IdMap::default(),
            tally_order: Vec::new(),
        }
    }

    /// Applies the rules that match the event; events without a time
    /// (metadata) match none.
    #[inline]
    pub fn event(&mut self, row: &EventRow<'_>) {
        let Some(ts) = row.ts_ns else { return };
        let Some(at) = self.events.iter().position(|(name, _)| *name == row.name) else {
            return;
        };
        for n in 0..self.events[at].1.len() {
            let rule = self.events[at].1[n];
            self.apply(rule, ts, row);
        }
    }

    fn apply(&mut self, r: usize, ts: u64, row: &EventRow<'_>) {
        let rules = self.rules;
        let rule = &rules[r];
        for (c, (field, wanted)) in rule.conditions.iter().enumerate() {
            match arg(row, field) {
                Some(v) if int_of(v) == Some(*wanted) => {}
                Some(_) => return,
                None => {
                    return self.tally(
                        r,
                        Problem::MissingField(FieldRole::Condition(c)),
                        ts,
                        row,
                        String::new(),
                    )
                }
            }
        }
        let Some(key) = arg(row, &rule.key).map(key_of) else {
            return self.tally(
                r,
                Problem::MissingField(FieldRole::Key),
                ts,
                row,
                String::new(),
            );
        };
        let kind = self.rule_kind[r];
        match rule.action {
            RuleAction::Begin => self.begin(r, kind, key, ts, row),
            RuleAction::End => match self.live.remove(&(kind, key.clone())) {
                Some(id) => {
                    let lifetime = &mut self.objects.lifetimes[id as usize];
                    lifetime.end_ns = ts;
                    lifetime.end_core = Some(row.core_id);
                    let (slot, pool) = (lifetime.slot, lifetime.pool);
                    self.lanes_of(kind, pool)[slot as usize] = false;
                }
                None => {
                    let key = self.key_text(kind, &key);
                    self.tally(r, Problem::NotLive, ts, row, key)
                }
            },
            RuleAction::Mark => match self.live.get(&(kind, key.clone())) {
                Some(&lifetime) => {
                    let value = match &rule.value {
                        Some(field) => match arg(row, field) {
                            Some(v) => int_of(v),
                            None => {
                                return self.tally(
                                    r,
                                    Problem::MissingField(FieldRole::Value),
                                    ts,
                                    row,
                                    String::new(),
                                )
                            }
                        },
                        None => None,
                    };
                    let event = self.objects.names.intern(row.name.as_bytes());
                    self.objects.marks.push(ObjectMark {
                        ts_ns: ts,
                        lifetime,
                        event,
                        value,
                    });
                }
                None => {
                    let key = self.key_text(kind, &key);
                    self.tally(r, Problem::NotLive, ts, row, key)
                }
            },
            RuleAction::Counter => {
                let Some(value) = rule.value.as_deref().and_then(|f| arg(row, f)) else {
                    return self.tally(
                        r,
                        Problem::MissingField(FieldRole::Value),
                        ts,
                        row,
                        String::new(),
                    );
                };
                let Some(value) = int_of(value) else {
                    return self.tally(
                        r,
                        Problem::MissingField(FieldRole::Value),
                        ts,
                        row,
                        String::new(),
                    );
                };
                let Some(pool) = self.pool(r, kind, key, ts, row) else {
                    return;
                };
                let name = self.rule_counter[r];
                let next = self.objects.counters.len() as u32;
                let counter = *self.counters.entry((pool, name)).or_insert(next);
                if counter == next {
                    self.objects.counters.push(ObjectCounter {
                        pool,
                        name: self.counter_names[name as usize].clone(),
                    });
                }
                self.objects.counter_values.push(CounterValue {
                    ts_ns: ts,
                    counter,
                    value,
                });
            }
        }
    }

    fn begin(&mut self, r: usize, kind: u32, key: ObjectKey, ts: u64, row: &EventRow<'_>) {
        let rules = self.rules;
        let rule = &rules[r];
        let name = match &rule.name {
            Some(field) => match arg(row, field) {
                Some(v) => self.intern_value(v),
                None => {
                    return self.tally(
                        r,
                        Problem::MissingField(FieldRole::Name),
                        ts,
                        row,
                        String::new(),
                    )
                }
            },
            None => StrId::EMPTY,
        };
        let pool = match &rule.pool {
            Some(field) => match arg(row, field) {
                Some(v) => match self.pool(r, kind, key_of(v), ts, row) {
                    Some(pool) => Some(pool),
                    None => return,
                },
                None => {
                    return self.tally(
                        r,
                        Problem::MissingField(FieldRole::Pool),
                        ts,
                        row,
                        String::new(),
                    )
                }
            },
            None => None,
        };
        if let Some(earlier) = self.live.remove(&(kind, key.clone())) {
            // The earlier lifetime's end was not recorded: it ends here,
            // as much as is known of it.
            let lifetime = &mut self.objects.lifetimes[earlier as usize];
            lifetime.end_ns = ts;
            lifetime.truncated = true;
            let (slot, its_pool) = (lifetime.slot, lifetime.pool);
            self.lanes_of(kind, its_pool)[slot as usize] = false;
            let text = self.key_text(kind, &key);
            self.tally(r, Problem::AlreadyLive, ts, row, text);
        }
        let lanes = self.lanes_of(kind, pool);
        let slot = match lanes.iter().position(|busy| !busy) {
            Some(free) => free,
            None => {
                lanes.push(false);
                lanes.len() - 1
            }
        };
        lanes[slot] = true;
        let id = self.objects.lifetimes.len() as u32;
        self.live.insert((kind, key.clone()), id);
        self.objects.lifetimes.push(ObjectLifetime {
            kind,
            key,
            name,
            pool,
            slot: slot as u32,
            start_ns: ts,
            end_ns: ts,
            truncated: false,
            begin_core: row.core_id,
            end_core: None,
            begun_by: None,
            ended_by: None,
        });
    }

    /// The pool of `kind` keyed `key`, made at its first mention; named by
    /// the rule's `pool_name` field when the event has one.
    fn pool(
        &mut self,
        r: usize,
        kind: u32,
        key: ObjectKey,
        ts: u64,
        row: &EventRow<'_>,
    ) -> Option<u32> {
        let rules = self.rules;
        let rule = &rules[r];
        let name = match &rule.pool_name {
            Some(field) => match arg(row, field) {
                Some(ArgValue::Str(bytes)) => Some(String::from_utf8_lossy(bytes).into_owned()),
                Some(v) => Some(key_of(v).to_string()),
                None => {
                    self.tally(
                        r,
                        Problem::MissingField(FieldRole::PoolName),
                        ts,
                        row,
                        String::new(),
                    );
                    return None;
                }
            },
            None => None,
        };
        let next = self.objects.pools.len() as u32;
        let pool = *self.pools.entry((kind, key.clone())).or_insert(next);
        if pool == next {
            self.objects.pools.push(ObjectPool {
                kind,
                name: name.unwrap_or_else(|| key.to_string()),
                key,
                slots: 0,
            });
            self.pool_lanes.push(Vec::new());
        }
        Some(pool)
    }

    fn lanes_of(&mut self, kind: u32, pool: Option<u32>) -> &mut Vec<bool> {
        match pool {
            Some(pool) => &mut self.pool_lanes[pool as usize],
            None => &mut self.kind_lanes[kind as usize],
        }
    }

    fn intern_value(&mut self, value: ArgValue<'_>) -> StrId {
        match value {
            ArgValue::Str(bytes) => self.objects.names.intern(bytes),
            other => self
                .objects
                .names
                .intern(key_of(other).to_string().as_bytes()),
        }
    }

    fn key_text(&self, kind: u32, key: &ObjectKey) -> String {
        format!("{} {key}", self.objects.kind(kind))
    }

    fn tally(&mut self, r: usize, problem: Problem, ts: u64, row: &EventRow<'_>, example: String) {
        let tally = self.tallies.entry((r, problem)).or_insert_with(|| {
            self.tally_order.push((r, problem));
            Tally {
                count: 0,
                first_ns: ts,
                last_ns: ts,
                core_id: row.core_id,
                example,
            }
        });
        tally.count += 1;
        tally.last_ns = ts;
    }

    /// Ends what is still live at the end of the trace, finds the task or
    /// ISR that began and ended each lifetime, and puts the objects and
    /// the anomalies in `model`.
    pub fn finish(mut self, model: &mut Model) {
        let end = model.info.duration_ns;
        for (_, id) in self.live.drain() {
            let lifetime = &mut self.objects.lifetimes[id as usize];
            lifetime.end_ns = end;
            lifetime.truncated = true;
        }
        for lifetime in &mut self.objects.lifetimes {
            lifetime.begun_by = actor_at(model, lifetime.begin_core, lifetime.start_ns);
            lifetime.ended_by = lifetime
                .end_core
                .and_then(|core| actor_at(model, core, lifetime.end_ns));
        }
        for (pool, lanes) in self.objects.pools.iter_mut().zip(&self.pool_lanes) {
            pool.slots = lanes.len() as u32;
        }
        for (r, problem) in self.tally_order.iter().copied() {
            let tally = &self.tallies[&(r, problem)];
            let (kind, detail) = describe(&self.rules[r], problem, &tally.example);
            model.anomalies.push(Anomaly {
                start_ns: tally.first_ns,
                end_ns: tally.last_ns,
                core_id: Some(tally.core_id),
                kind,
                count: tally.count,
                detail,
            });
        }
        model
            .anomalies
            .sort_by_key(|a| (a.end_ns, a.start_ns, a.kind));
        model.objects = self.objects;
    }
}

/// The anomaly kind and detail of a rule's problem.
fn describe(rule: &Rule, problem: Problem, example: &str) -> (AnomalyKind, String) {
    let event = &rule.event;
    match problem {
        Problem::MissingField(role) => {
            let field = match role {
                FieldRole::Condition(c) => rule.conditions[c].0.as_str(),
                FieldRole::Key => rule.key.as_str(),
                FieldRole::Name => rule.name.as_deref().unwrap_or(""),
                FieldRole::Pool => rule.pool.as_deref().unwrap_or(""),
                FieldRole::PoolName => rule.pool_name.as_deref().unwrap_or(""),
                FieldRole::Value => rule.value.as_deref().unwrap_or(""),
            };
            (
                AnomalyKind::Inconsistent,
                format!(
                    "a {} rule names field `{field}`, which event {event} does not have (or not as an integer); the rule skipped these events",
                    rule.action.as_str()
                ),
            )
        }
        Problem::NotLive if rule.action == RuleAction::End => (
            AnomalyKind::EndWithoutBegin,
            format!("{event} ended {example}, which had not begun (first of these)"),
        ),
        Problem::NotLive => (
            AnomalyKind::Inconsistent,
            format!("{event} marked {example}, which was not live (first of these)"),
        ),
        Problem::AlreadyLive => (
            AnomalyKind::Inconsistent,
            format!(
                "{event} began {example} while it was live; its earlier lifetime ends there, truncated (first of these)"
            ),
        ),
    }
}

/// The task or ISR running on `core` at `ts`, from the model's slices.
fn actor_at(model: &Model, core: u32, ts: u64) -> Option<Actor> {
    let isrs = &model.isr_slices;
    let mut innermost: Option<(u32, IsrKey)> = None;
    let upto = isrs.partition_point(|s| s.start_ns <= ts);
    for i in (upto.saturating_sub(ACTOR_SEARCH_LIMIT)..upto).rev() {
        let Some(s) = isrs.get(i) else { break };
        if s.core_id != core {
            continue;
        }
        if s.end_ns >= ts && innermost.is_none_or(|(depth, _)| s.depth > depth) {
            innermost = Some((
                s.depth,
                IsrKey {
                    core_id: s.core_id,
                    isr_id: s.isr_id,
                },
            ));
        }
        if s.depth == 0 {
            break;
        }
    }
    if let Some((_, isr)) = innermost {
        return Some(Actor::Isr(isr));
    }
    let slices = &model.sched_slices;
    let upto = slices.partition_point(|s| s.start_ns <= ts);
    (upto.saturating_sub(ACTOR_SEARCH_LIMIT)..upto)
        .rev()
        .filter_map(|i| slices.get(i))
        .find(|s| s.core_id == core)
        .filter(|s| s.end_ns >= ts)
        .map(|s| Actor::Task(s.task_id))
}

fn arg<'a>(row: &EventRow<'a>, field: &str) -> Option<ArgValue<'a>> {
    row.args
        .iter()
        .find(|(name, _)| *name == field)
        .map(|&(_, v)| v)
}

fn int_of(value: ArgValue<'_>) -> Option<i64> {
    match value {
        ArgValue::Int(v) => Some(v),
        ArgValue::UInt(v) => Some(v as i64),
        ArgValue::Str(_) => None,
    }
}

fn key_of(value: ArgValue<'_>) -> ObjectKey {
    match value {
        ArgValue::Int(v) => ObjectKey::Int(v as u64),
        ArgValue::UInt(v) => ObjectKey::Int(v),
        ArgValue::Str(bytes) => ObjectKey::Text(String::from_utf8_lossy(bytes).into()),
    }
}

fn index_of(list: &mut Vec<String>, name: &str) -> u32 {
    match list.iter().position(|n| n == name) {
        Some(i) => i as u32,
        None => {
            list.push(name.to_string());
            (list.len() - 1) as u32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rule;

    fn rule(event: &str, action: RuleAction, key: &str) -> Rule {
        Rule {
            event: event.into(),
            conditions: Vec::new(),
            action,
            kind: "buf".into(),
            key: key.into(),
            name: None,
            pool: None,
            pool_name: None,
            value: None,
            counter: None,
        }
    }

    fn rules() -> Rules {
        Rules {
            rules: vec![
                Rule {
                    name: Some("name".into()),
                    pool: Some("pool".into()),
                    pool_name: Some("name".into()),
                    ..rule("alloc", RuleAction::Begin, "buf")
                },
                rule("free", RuleAction::End, "buf"),
                Rule {
                    value: Some("count".into()),
                    ..rule("ref", RuleAction::Mark, "buf")
                },
                Rule {
                    counter: Some("free".into()),
                    value: Some("free".into()),
                    ..rule("alloc", RuleAction::Counter, "pool")
                },
            ],
        }
    }

    fn event(b: &mut LifetimeBuilder<'_>, ts: u64, name: &str, args: &[(&str, ArgValue<'_>)]) {
        b.event(&EventRow {
            ts_ns: Some(ts),
            core_id: 0,
            name,
            args,
        });
    }

    fn alloc(b: &mut LifetimeBuilder<'_>, ts: u64, buf: u64, free: u64) {
        let args = [
            ("pool", ArgValue::UInt(0x100)),
            ("free", ArgValue::UInt(free)),
            ("buf", ArgValue::UInt(buf)),
            ("name", ArgValue::Str(b"rx")),
        ];
        event(b, ts, "alloc", &args);
    }

    #[test]
    fn lifetimes_marks_and_counters_follow_the_rules() {
        let rules = rules();
        let mut b = LifetimeBuilder::new(&rules);
        alloc(&mut b, 10, 0xA, 3);
        alloc(&mut b, 20, 0xB, 2);
        event(
            &mut b,
            25,
            "ref",
            &[("buf", ArgValue::UInt(0xA)), ("count", ArgValue::UInt(2))],
        );
        event(&mut b, 30, "free", &[("buf", ArgValue::UInt(0xA))]);
        alloc(&mut b, 40, 0xC, 2);
        let mut model = Model::default();
        model.info.duration_ns = 50;
        b.finish(&mut model);
        let o = &model.objects;
        let spans: Vec<_> = o
            .lifetimes
            .iter()
            .map(|l| {
                (
                    l.key.to_string(),
                    l.start_ns,
                    l.end_ns,
                    l.truncated,
                    l.slot,
                    o.names.get(l.name),
                )
            })
            .collect();
        assert_eq!(
            spans,
            [
                ("0xa".to_string(), 10, 30, false, 0, "rx"),
                ("0xb".to_string(), 20, 50, true, 1, "rx"),
                ("0xc".to_string(), 40, 50, true, 0, "rx"),
            ]
        );
        assert_eq!(o.pools.len(), 1);
        assert_eq!((o.pools[0].name.as_str(), o.pools[0].slots), ("rx", 2));
        assert_eq!(o.marks.len(), 1);
        assert_eq!((o.marks[0].lifetime, o.marks[0].value), (0, Some(2)));
        let free: Vec<_> = o
            .counter_values
            .iter()
            .map(|v| (v.ts_ns, v.value))
            .collect();
        assert_eq!(free, [(10, 3), (20, 2), (40, 2)]);
        assert_eq!(o.counters[0].name, "free");
        assert!(model.anomalies.is_empty());
    }

    #[test]
    fn damage_is_counted_as_anomalies() {
        let rules = rules();
        let mut b = LifetimeBuilder::new(&rules);
        event(&mut b, 5, "free", &[("buf", ArgValue::UInt(0xA))]);
        event(&mut b, 6, "free", &[("buf", ArgValue::UInt(0xB))]);
        alloc(&mut b, 10, 0xA, 3);
        alloc(&mut b, 20, 0xA, 2);
        event(&mut b, 25, "ref", &[("buf", ArgValue::UInt(0xA))]);
        event(
            &mut b,
            26,
            "ref",
            &[("buf", ArgValue::UInt(0xF)), ("count", ArgValue::UInt(1))],
        );
        let mut model = Model::default();
        model.info.duration_ns = 30;
        b.finish(&mut model);
        let found: Vec<_> = model
            .anomalies
            .iter()
            .map(|a| (a.kind, a.count, a.start_ns, a.end_ns, a.detail.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (AnomalyKind::EndWithoutBegin, 2, 5, 6, "free ended buf 0xa, which had not begun (first of these)"),
                (AnomalyKind::Inconsistent, 1, 20, 20, "alloc began buf 0xa while it was live; its earlier lifetime ends there, truncated (first of these)"),
                (AnomalyKind::Inconsistent, 1, 25, 25, "a mark rule names field `count`, which event ref does not have (or not as an integer); the rule skipped these events"),
                (AnomalyKind::Inconsistent, 1, 26, 26, "ref marked buf 0xf, which was not live (first of these)"),
            ]
        );
        let ends: Vec<_> = model
            .objects
            .lifetimes
            .iter()
            .map(|l| (l.start_ns, l.end_ns, l.truncated))
            .collect();
        assert_eq!(ends, [(10, 20, true), (20, 30, true)]);
    }
}
