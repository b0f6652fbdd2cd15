//! One module per experiment (one per lesson). Each exports a unit struct implementing
//! [`Experiment`](crate::experiment::Experiment) and a typed model the web app can draw.

pub mod high_order_alloc;
pub mod ktls_recursion;
pub mod skb_layout;
