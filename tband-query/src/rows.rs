//! Rows of SQL cells, and the model they are read from: where the rows of
//! a table go ([`RowSink`]) and where they come from ([`RowSource`]). The
//! values of each table's row come from its definition in
//! [`crate::tables`]; engines only decide how a row is written.

use std::cell::OnceCell;

use tband_model::{IntoIter, Isr, Iter, Marker, Model, Row, StrId, Table as LargeTable};
use tband_model::{PriorityCause, QueueOpKind, StateReason, TaskStateKind};

/// One value going into the database. The conversions into it are
/// `#[inline]`: the tables' columns, in modules of their own, make one per
/// value written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell<'a> {
    Null,
    Int(i64),
    Text(&'a str),
}

impl From<u64> for Cell<'_> {
    /// Values beyond `i64::MAX` (only possible in raw event fields) become NULL.
    #[inline]
    fn from(v: u64) -> Self {
        i64::try_from(v).map_or(Cell::Null, Cell::Int)
    }
}

impl From<u32> for Cell<'_> {
    #[inline]
    fn from(v: u32) -> Self {
        Cell::Int(v.into())
    }
}

impl From<i64> for Cell<'_> {
    #[inline]
    fn from(v: i64) -> Self {
        Cell::Int(v)
    }
}

impl From<bool> for Cell<'_> {
    #[inline]
    fn from(v: bool) -> Self {
        Cell::Int(v.into())
    }
}

impl<'a> From<&'a str> for Cell<'a> {
    #[inline]
    fn from(v: &'a str) -> Self {
        Cell::Text(v)
    }
}

/// The enums of columns stored as codes go in as their code: the variant's
/// position in its enum, which is the index of its text in the schema's
/// list (`schema::TASK_STATE_KINDS`, ...).
macro_rules! coded_enums {
    ($($enum:ty),*) => {$(
        impl From<$enum> for Cell<'_> {
            #[inline]
    fn from(v: $enum) -> Self {
                Cell::Int(v as i64)
            }
        }
    )*};
}

coded_enums!(TaskStateKind, StateReason, PriorityCause, QueueOpKind);

impl<'a, T: Into<Cell<'a>>> From<Option<T>> for Cell<'a> {
    #[inline]
    fn from(v: Option<T>) -> Self {
        v.map_or(Cell::Null, Into::into)
    }
}

/// Where rows of one table go; an error is the engine's message.
pub trait RowSink {
    fn row(&mut self, cells: &[Cell<'_>]) -> Result<(), String>;
}

/// The model a load reads its rows from.
pub enum RowSource<'m> {
    /// A model read as it is, for loads that come back to it.
    Kept(&'m Model),
    /// A model given up as it is loaded: a model table is freed chunk by
    /// chunk as its rows are written, unless a table still to load reads
    /// it, so that the database grows into the memory the model gives up.
    /// The model's small parts stay until the source is dropped.
    Consumed {
        model: Box<Model>,
        /// The tables still to load.
        pending: Vec<&'static str>,
    },
}

impl RowSource<'static> {
    /// `model`, given up as the tables named `tables` are loaded from it
    /// in their order.
    pub fn consumed(model: Model, tables: impl IntoIterator<Item = &'static str>) -> Self {
        RowSource::Consumed {
            model: Box::new(model),
            pending: tables.into_iter().collect(),
        }
    }
}

impl RowSource<'_> {
    /// The model, or what is left of it.
    pub fn model(&self) -> &Model {
        match self {
            RowSource::Kept(model) => model,
            RowSource::Consumed { model, .. } => model,
        }
    }

    /// Notes that the table `name` is being loaded: no longer one to come.
    pub(crate) fn loading(&mut self, name: &str) {
        if let RowSource::Consumed { pending, .. } = self {
            pending.retain(|&t| t != name);
        }
    }

    /// Takes the model table `part` out for the table being written to
    /// consume, unless the model is kept or a table still to load reads it.
    pub(crate) fn take<R: Row>(&mut self, part: &Part<R>) -> Option<LargeTable<R>> {
        match self {
            RowSource::Consumed { model, pending }
                if !pending.iter().any(|t| part.readers.contains(t)) =>
            {
                Some(std::mem::take((part.table_mut)(model)))
            }
            _ => None,
        }
    }

    /// Hands `each` every row of the model's `rows`, read in place.
    pub(crate) fn each_in<R>(
        &mut self,
        rows: fn(&Model) -> &[R],
        mut each: impl Each<R>,
    ) -> Result<(), String> {
        let model = self.model();
        let context = Context::new(model);
        rows(model).iter().try_for_each(|r| each(r, &context))
    }

    /// Hands `each` every row of the model table `part`, consumed where
    /// [`RowSource::take`] takes it.
    pub(crate) fn each_of<R: Row>(
        &mut self,
        part: &Part<R>,
        mut each: impl Each<R>,
    ) -> Result<(), String> {
        let taken = self.take(part);
        let model = self.model();
        let context = Context::new(model);
        part.rows(taken, model).try_for_each(|r| each(&r, &context))
    }

    /// Hands `each` every row that `make` makes of the model.
    pub(crate) fn each_made<R>(
        &mut self,
        make: fn(&Model) -> Vec<R>,
        mut each: impl Each<R>,
    ) -> Result<(), String> {
        let model = self.model();
        let context = Context::new(model);
        make(model).iter().try_for_each(|r| each(r, &context))
    }
}

/// One of the model's large tables, which a consumed source frees as it
/// is written.
pub(crate) struct Part<R: Row> {
    /// Where it is in the model.
    pub table: fn(&Model) -> &LargeTable<R>,
    pub table_mut: fn(&mut Model) -> &mut LargeTable<R>,
    /// The tables that read it.
    pub readers: &'static [&'static str],
}

impl<R: Row> Part<R> {
    /// Its rows: those of `taken` if it was taken, else those in `model`.
    pub(crate) fn rows<'m>(&self, taken: Option<LargeTable<R>>, model: &'m Model) -> Rows<'m, R> {
        match taken {
            Some(table) => Rows::Taken(Box::new(table.into_iter())),
            None => Rows::Read((self.table)(model).iter()),
        }
    }
}

/// The rows of a model table by value: consumed if the table was taken out
/// of the model, else read in place.
pub(crate) enum Rows<'m, R: Row> {
    Read(Iter<'m, R>),
    Taken(Box<IntoIter<R>>),
}

impl<R: Row> Iterator for Rows<'_, R> {
    type Item = R;

    #[inline]
    fn next(&mut self) -> Option<R> {
        match self {
            Rows::Read(rows) => rows.next(),
            Rows::Taken(rows) => rows.next(),
        }
    }
}

/// What is handed each row of type `R`, with the context to read it in.
pub trait Each<R>: FnMut(&R, &Context<'_>) -> Result<(), String> {}

impl<R, F: FnMut(&R, &Context<'_>) -> Result<(), String>> Each<R> for F {}

/// What a row is read with besides itself: the model it comes from, and
/// texts made from the model at their first use.
pub struct Context<'m> {
    pub(crate) model: &'m Model,
    /// The tracked objects' keys as text, by index.
    object_keys: OnceCell<Vec<String>>,
    /// The keys of the tracked objects' pools as text, by index.
    pool_keys: OnceCell<Vec<String>>,
}

impl<'m> Context<'m> {
    pub(crate) fn new(model: &'m Model) -> Self {
        Context {
            model,
            object_keys: OnceCell::new(),
            pool_keys: OnceCell::new(),
        }
    }

    /// The string `id` of the model.
    #[inline]
    pub(crate) fn text(&self, id: StrId) -> Cell<'m> {
        Cell::Text(self.model.strings.get(id))
    }

    /// The firmware id of the task at index `task` of the model's tasks.
    #[inline]
    pub(crate) fn task_id(&self, task: u32) -> u32 {
        self.model.tasks[task as usize].task_id
    }

    /// The firmware id of the queue at index `queue` of the model's queues.
    #[inline]
    pub(crate) fn queue_id(&self, queue: u32) -> u32 {
        self.model.queues[queue as usize].queue_id
    }

    /// The ISR at index `isr` of the model's ISRs.
    #[inline]
    pub(crate) fn isr(&self, isr: u32) -> &'m Isr {
        &self.model.isrs[isr as usize]
    }

    /// The marker at index `marker` of the model's markers.
    #[inline]
    pub(crate) fn marker(&self, marker: u32) -> &'m Marker {
        &self.model.markers[marker as usize]
    }

    /// The key of the tracked object `key` (an index into its keys).
    pub(crate) fn object_key(&self, key: u32) -> &str {
        &self
            .object_keys
            .get_or_init(|| self.model.tracked.key_texts())[key as usize]
    }

    /// The key of the tracked objects' pool `pool`.
    pub(crate) fn pool_key(&self, pool: u32) -> &str {
        let keys = self.pool_keys.get_or_init(|| {
            let pools = &self.model.tracked.pools;
            pools.iter().map(|p| p.key.to_string()).collect()
        });
        &keys[pool as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema;

    /// Every variant of an enum. The match fails to compile when the model
    /// gains a variant the list lacks.
    macro_rules! every {
        ($enum:ident: $($variant:ident),*) => {{
            let _ = |v: $enum| match v {
                $($enum::$variant)|* => (),
            };
            [$($enum::$variant),*]
        }};
    }

    fn assert_codes<E: Copy + Into<Cell<'static>>>(
        every: &[E],
        texts: &[&str],
        as_str: fn(E) -> &'static str,
    ) {
        assert_eq!(every.len(), texts.len());
        for &v in every {
            let Cell::Int(code) = v.into() else {
                panic!("{} is not coded", as_str(v))
            };
            let text = usize::try_from(code).ok().and_then(|c| texts.get(c));
            assert_eq!(text, Some(&as_str(v)), "code {code}");
        }
    }

    #[test]
    fn each_code_stands_for_the_text_of_its_variant() {
        use tband_model::{
            PriorityCause as P, QueueOpKind as Q, StateReason as R, TaskStateKind as S,
        };
        let states = every!(S: Running, Ready, Blocked, Suspended, Deleted);
        assert_codes(&states, schema::TASK_STATE_KINDS, S::as_str);
        let reasons = every!(
            R: None, Preempted, Woken, Created, Delay, DelayUntil, QueueSend, QueueReceive,
            QueuePeek, Semaphore, Mutex, EventFlags, Sleep, Suspend, Deleted
        );
        assert_codes(&reasons, schema::STATE_REASONS, R::as_str);
        assert_codes(
            &every!(P: Set, Inherit, Disinherit),
            schema::PRIORITY_CAUSES,
            P::as_str,
        );
        let ops = every!(Q: Send, Overwrite, Receive, Reset, Level);
        assert_codes(&ops, schema::QUEUE_OP_KINDS, Q::as_str);
    }

    #[test]
    fn sources_cross_to_a_loading_thread() {
        // DuckDB produces the rows on a second thread.
        fn send<T: Send>() {}
        send::<RowSource<'_>>();
    }
}
