//! The call chains the socket-memory world charges simulated time to (`crate::sim::profile`).
//!
//! Command 0 is the server's own threads (the raise path below `sendmsg()`), command 1 is
//! `swapper`: the timer softirq that wakes an idle CPU at the tick and runs the expired
//! `tcp_write_timer`s, the call path of seed 003 (outermost first here; perf prints it
//! innermost first). The atomic ops of 2018 and of 6.0 are inlined into
//! `__sk_mem_{raise,reduce}_allocated`, so they are charged to those symbols, as perf showed
//! them; the percpu_counter patch calls out to the `percpu_counter_*` functions.

use crate::sim::profile::call_chains;

call_chains! {
    /// Where a CPU of this world spends a nanosecond.
    pub enum Stack for ["server", "swapper"] {
        /// The inlined `atomic_long_add_return` (2018) or per-CPU reserve + atomic (6.0).
        Raise => "tcp_sendmsg;sk_stream_alloc_skb;sk_wmem_schedule;__sk_mem_schedule;__sk_mem_raise_allocated",
        RaiseAdd => "tcp_sendmsg;sk_stream_alloc_skb;sk_wmem_schedule;__sk_mem_schedule;__sk_mem_raise_allocated;percpu_counter_add_batch",
        RaiseFold => "tcp_sendmsg;sk_stream_alloc_skb;sk_wmem_schedule;__sk_mem_schedule;__sk_mem_raise_allocated;percpu_counter_add_batch;_raw_spin_lock_irqsave",
        RaiseFoldSpin => "tcp_sendmsg;sk_stream_alloc_skb;sk_wmem_schedule;__sk_mem_schedule;__sk_mem_raise_allocated;percpu_counter_add_batch;_raw_spin_lock_irqsave;queued_spin_lock_slowpath",
        RaiseCompare => "tcp_sendmsg;sk_stream_alloc_skb;sk_wmem_schedule;__sk_mem_schedule;__sk_mem_raise_allocated;__percpu_counter_compare",
        /// The inlined `atomic_long_sub` (2018) or per-CPU reserve + atomic (6.0).
        Reduce => "cpuidle_enter_state;apic_timer_interrupt;smp_apic_timer_interrupt;irq_exit;__do_softirq;run_timer_softirq;call_timer_fn;tcp_write_timer;__sk_mem_reduce_allocated",
        ReduceAdd => "cpuidle_enter_state;apic_timer_interrupt;smp_apic_timer_interrupt;irq_exit;__do_softirq;run_timer_softirq;call_timer_fn;tcp_write_timer;__sk_mem_reduce_allocated;percpu_counter_add_batch",
        ReduceFold => "cpuidle_enter_state;apic_timer_interrupt;smp_apic_timer_interrupt;irq_exit;__do_softirq;run_timer_softirq;call_timer_fn;tcp_write_timer;__sk_mem_reduce_allocated;percpu_counter_add_batch;_raw_spin_lock_irqsave",
        ReduceFoldSpin => "cpuidle_enter_state;apic_timer_interrupt;smp_apic_timer_interrupt;irq_exit;__do_softirq;run_timer_softirq;call_timer_fn;tcp_write_timer;__sk_mem_reduce_allocated;percpu_counter_add_batch;_raw_spin_lock_irqsave;queued_spin_lock_slowpath",
        /// Everything else the CPUs do (the rest of the server, and idle): the denominator.
        Other => "[everything else]",
    }
}

/// Which caller an update comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Path {
    /// `__sk_mem_raise_allocated` (a send that needs more than the socket's forward alloc).
    Raise,
    /// `__sk_mem_reduce_allocated` (a `tcp_write_timer` reclaiming the forward alloc).
    Reduce,
}

impl Path {
    /// Command index: raise runs in the server's task, reduce in the timer softirq.
    pub fn command(self) -> usize {
        match self {
            Path::Raise => 0,
            Path::Reduce => 1,
        }
    }

    /// The inlined atomic (2018, 6.0).
    pub fn inline(self) -> Stack {
        match self {
            Path::Raise => Stack::Raise,
            Path::Reduce => Stack::Reduce,
        }
    }

    /// `percpu_counter_add_batch`'s own work.
    pub fn add(self) -> Stack {
        match self {
            Path::Raise => Stack::RaiseAdd,
            Path::Reduce => Stack::ReduceAdd,
        }
    }

    /// The fold: lock acquisition and the critical section.
    pub fn fold(self) -> Stack {
        match self {
            Path::Raise => Stack::RaiseFold,
            Path::Reduce => Stack::ReduceFold,
        }
    }

    /// Spinning on `fbc->lock`.
    pub fn fold_spin(self) -> Stack {
        match self {
            Path::Raise => Stack::RaiseFoldSpin,
            Path::Reduce => Stack::ReduceFoldSpin,
        }
    }
}
