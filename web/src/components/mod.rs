//! Widgets: the Yew components the pages and views are built from. Thin: state changes go
//! through a page's reducer, browser I/O through [`crate::hooks`] and [`crate::browser`], drawing
//! through [`crate::charts`].

pub mod bands;
pub mod chart;
pub mod cli_line;
pub mod compare;
pub mod export;
pub mod notices;
pub mod panel;
pub mod question;
pub mod repro_table;
pub mod results;
pub mod transport;
pub mod verdict;
