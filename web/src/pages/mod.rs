//! The pages: one module per route of [`crate::route`], and the app that shows the page of the
//! current URL in the frame.

pub mod about;
pub mod app;
pub mod frame;
pub mod home;
pub mod player;
pub mod reproduce;
pub mod shell;
pub mod validation;
