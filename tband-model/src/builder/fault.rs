//! Faults: the crash ends what ran on its core there, and is the trace's
//! anomaly of kind `fault`. The registers' events come just before the
//! fault's, on its core, so that the fault is the core's last event.

use super::{ModelBuilder, OpenIsr};
use crate::{AnomalyKind, Fault, FaultAddress, FaultStatus, StateReason, TaskStateKind};

impl ModelBuilder {
    /// `core` faulted at `t`: what ran there (the innermost ISR, else the
    /// running task) crashed. The ISRs open there end at `t`, never exited,
    /// and so does the running task's slice, the task stopped in state
    /// Suspended (with no reason: the fault is the model's `faults` row).
    pub fn fault(&mut self, t: u64, core: u32, kind: u8, pc: u32, lr: u32) {
        let track = self.cores.entry(core);
        let (status, address) = std::mem::take(&mut track.fault_registers);
        let isr: Option<OpenIsr> = track.isr_stack.last().copied();
        let running = track.running.take();
        if !track.isr_stack.is_empty() {
            self.close_isrs(t, core, 0, true);
        }
        if let Some((task, row)) = running {
            self.tasks.entry(task).announced =
                Some((TaskStateKind::Suspended, StateReason::None, None));
            self.leave_running(t, task, row);
        }
        let who = match (isr, running) {
            (Some(open), _) => self.isr_label(core, open.isr),
            (None, Some((task, _))) => format!("task {}", self.task_label(task)),
            (None, None) => format!("core {core}, no task known to run"),
        };
        self.anomaly(
            t,
            t,
            Some(core),
            AnomalyKind::Fault,
            1,
            format!("{} in {who} at pc {pc:#010x}", crate::fault_kind_name(kind)),
        );
        self.faults.push(Fault {
            ts_ns: t,
            core_id: core,
            task: running.map(|(task, _)| task),
            isr: isr.map(|open| open.entered),
            kind,
            pc,
            lr,
            status,
            address,
            pc_location: None,
            lr_location: None,
        });
    }

    /// The status registers of the fault `core` is about to record.
    pub fn fault_status(&mut self, core: u32, status: FaultStatus) {
        self.cores.entry(core).fault_registers.0 = Some(status);
    }

    /// The fault address registers of the fault `core` is about to record.
    pub fn fault_address(&mut self, core: u32, address: FaultAddress) {
        self.cores.entry(core).fault_registers.1 = Some(address);
    }

    fn task_label(&self, task: u32) -> String {
        match self.tasks.get(task).and_then(|t| t.name.as_deref()) {
            Some(name) => format!("`{name}`"),
            None => task.to_string(),
        }
    }

    fn isr_label(&self, core: u32, isr: u32) -> String {
        let key = crate::IsrKey {
            core_id: core,
            isr_id: isr,
        };
        match self.isr_names.get(&key) {
            Some(name) => format!("ISR `{name}`"),
            None => format!("ISR {isr}"),
        }
    }

    /// The faults with their tasks and ISRs as indices into the model's
    /// lists (`task_index`, `isr_index` from firmware id and entered
    /// number).
    pub(super) fn faults_as_rows(
        &self,
        task_index: &dyn Fn(u32) -> u32,
        isr_index: &dyn Fn(u32) -> u32,
    ) -> Vec<Fault> {
        (self.faults.iter())
            .map(|f| Fault {
                task: f.task.map(task_index),
                isr: f.isr.map(isr_index),
                ..f.clone()
            })
            .collect()
    }
}
