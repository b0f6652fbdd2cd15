//! Yew components. Thin: state changes go through [`crate::page::apply`], browser I/O through
//! [`crate::hooks`] and [`crate::browser`], drawing through [`crate::charts`].

pub mod about;
pub mod app;
pub mod bands;
pub mod chart;
pub mod cli_line;
pub mod compare;
pub mod export;
pub mod frame;
pub mod home;
pub mod notices;
pub mod panel;
pub mod pin;
pub mod player;
pub mod practice;
pub mod question;
pub mod reproduce;
pub mod results;
pub mod seed_posts;
pub mod shell;
pub mod transport;
pub mod validation;
