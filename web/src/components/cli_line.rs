//! "Copy as CLI": under every run, the command line that replays it natively
//! (`skblab_core::replay::command`: the fewest `--set`s that resolve to the run's values, and
//! its seed), with a Copy button. A kernel engineer takes a view from the page to a terminal,
//! `--format json` added, and gets the same numbers.

use crate::run::RunState;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CliLineProps {
    pub run: Rc<RunState>,
}

#[function_component(CliLine)]
pub fn cli_line(props: &CliLineProps) -> Html {
    let key = &props.run.key;
    let line = skblab_core::replay::command(key.experiment, &key.params, key.seed);
    let copied = use_state(|| None::<bool>);
    {
        // A new run's line has not been copied yet.
        let copied = copied.clone();
        use_effect_with(line.clone(), move |_| copied.set(None));
    }
    let onclick = {
        let (copied, line) = (copied.clone(), line.clone());
        Callback::from(move |_: MouseEvent| {
            let copied = copied.clone();
            crate::browser::copy_text(&line, move |ok| copied.set(Some(ok)));
        })
    };
    let said = match *copied {
        Some(true) => "Copied.",
        Some(false) => "The browser refused: select the line and copy it.",
        None => "",
    };
    html! {
        <p class="cli-line" data-testid="cli-line-box">
            <span class="cli-label">{"This run from the command line: "}</span>
            <code data-testid="cli-line">{ line }</code>{" "}
            <button class="btn btn-small" type="button" {onclick} data-testid="copy-cli"
                aria-label="Copy as CLI: the skblab command that replays this run">{"Copy as CLI"}</button>
            <span class="copy-said" role="status">{ said }</span>
        </p>
    }
}
