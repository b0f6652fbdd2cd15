//! The call chains the socket-memory world charges simulated time to (`crate::sim::profile`).
//!
//! Command 0 is the server's own threads (the raise path below `sendmsg()`, and the forced
//! charges of its transmit path), command 1 is
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
        RaiseSum => "tcp_sendmsg;sk_stream_alloc_skb;sk_wmem_schedule;__sk_mem_schedule;__sk_mem_raise_allocated;__percpu_counter_sum",
        RaiseSumSpin => "tcp_sendmsg;sk_stream_alloc_skb;sk_wmem_schedule;__sk_mem_schedule;__sk_mem_raise_allocated;__percpu_counter_sum;_raw_spin_lock_irqsave;queued_spin_lock_slowpath",
        /// `sk_forced_mem_schedule()` (tcp_output.c): the first skb of a write and the skbs
        /// `tso_fragment()` splits off, charged without the limit checks.
        Forced => "tcp_sendmsg;__tcp_push_pending_frames;tcp_write_xmit;tso_fragment;sk_stream_alloc_skb;sk_forced_mem_schedule",
        ForcedAdd => "tcp_sendmsg;__tcp_push_pending_frames;tcp_write_xmit;tso_fragment;sk_stream_alloc_skb;sk_forced_mem_schedule;percpu_counter_add_batch",
        ForcedFold => "tcp_sendmsg;__tcp_push_pending_frames;tcp_write_xmit;tso_fragment;sk_stream_alloc_skb;sk_forced_mem_schedule;percpu_counter_add_batch;_raw_spin_lock_irqsave",
        ForcedSum => "tcp_sendmsg;__tcp_push_pending_frames;tcp_write_xmit;tso_fragment;sk_stream_alloc_skb;sk_forced_mem_schedule;__percpu_counter_sum",
        ForcedSumSpin => "tcp_sendmsg;__tcp_push_pending_frames;tcp_write_xmit;tso_fragment;sk_stream_alloc_skb;sk_forced_mem_schedule;__percpu_counter_sum;_raw_spin_lock_irqsave;queued_spin_lock_slowpath",
        ForcedFoldSpin => "tcp_sendmsg;__tcp_push_pending_frames;tcp_write_xmit;tso_fragment;sk_stream_alloc_skb;sk_forced_mem_schedule;percpu_counter_add_batch;_raw_spin_lock_irqsave;queued_spin_lock_slowpath",
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
    /// `sk_forced_mem_schedule` (a split skb or the first skb of a write): no limit check, and
    /// not one of the `__sk_mem_*` functions of the seed's figures.
    Forced,
}

impl Path {
    /// Command index: raise runs in the server's task, reduce in the timer softirq.
    pub fn command(self) -> usize {
        match self {
            Path::Raise => 0,
            Path::Reduce => 1,
            Path::Forced => 0,
        }
    }

    /// The inlined atomic (2018, 6.0).
    pub fn inline(self) -> Stack {
        match self {
            Path::Raise => Stack::Raise,
            Path::Reduce => Stack::Reduce,
            Path::Forced => Stack::Forced,
        }
    }

    /// `percpu_counter_add_batch`'s own work.
    pub fn add(self) -> Stack {
        match self {
            Path::Raise => Stack::RaiseAdd,
            Path::Reduce => Stack::ReduceAdd,
            Path::Forced => Stack::ForcedAdd,
        }
    }

    /// The fold: lock acquisition and the critical section.
    pub fn fold(self) -> Stack {
        match self {
            Path::Raise => Stack::RaiseFold,
            Path::Reduce => Stack::ReduceFold,
            Path::Forced => Stack::ForcedFold,
        }
    }

    /// Spinning on `fbc->lock`.
    pub fn fold_spin(self) -> Stack {
        match self {
            Path::Raise => Stack::RaiseFoldSpin,
            Path::Reduce => Stack::ReduceFoldSpin,
            Path::Forced => Stack::ForcedFoldSpin,
        }
    }

    /// `__percpu_counter_sum` reading the value back (a reclaim never sums).
    pub fn sum(self) -> Stack {
        match self {
            Path::Raise | Path::Reduce => Stack::RaiseSum,
            Path::Forced => Stack::ForcedSum,
        }
    }

    /// Spinning on `fbc->lock` for the sum.
    pub fn sum_spin(self) -> Stack {
        match self {
            Path::Raise | Path::Reduce => Stack::RaiseSumSpin,
            Path::Forced => Stack::ForcedSumSpin,
        }
    }
}
