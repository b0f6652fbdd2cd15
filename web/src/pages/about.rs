//! The about page: every source the numbers rest on, and what the models assume.

use skblab_core::sources::SEEDS;
use skblab_lessons::Status;
use yew::prelude::*;

#[function_component(About)]
pub fn about() -> Html {
    html! {
        <div class="about prose-page">
            <h1>{"About skblab"}</h1>
            <p class="lead">
                {"skblab rebuilds numbers from Linux kernel mailing-list posts with small mechanistic models \
                  that run in your browser. The lesson texts are our own words; the models' results are compared \
                  with the numbers in the posts and commits below."}
            </p>
            <h2 id="seeds">{"Seed posts"}</h2>
            <ol class="sources" data-testid="seed-sources">
                { for SEEDS.iter().enumerate().map(|(i, c)| html! {
                    <li>
                        <span class="tag">{ format!("seed {i:03}") }</span>{" "}
                        <cite><a href={ if c.message_id.contains('@') { crate::cite::message_href(c.message_id) }
                                       else { crate::cite::subject_search_href(c.list, c.subject) } }
                                 rel="noopener noreferrer">{ format!("\"{}\"", c.subject) }</a></cite>
                        <div class="muted">
                            { format!("{}, {}, {}. Message-ID: ", c.list, c.date, c.author) }<code>{ c.message_id }</code>
                        </div>
                    </li>
                }) }
            </ol>
            <h2 id="lesson-sources">{"Sources of each lesson"}</h2>
            { for skblab_lessons::index().iter().filter(|e| e.status == Status::Written).filter_map(|e| {
                let lesson = skblab_lessons::lesson(&e.slug)?;
                Some(html! {
                    <section class="about-lesson">
                        <h3>{ &lesson.title }</h3>
                        <ul class="sources">{ for lesson.sources.iter().map(|s| html! { <li>{ crate::cite::linkify(s) }</li> }) }</ul>
                    </section>
                })
            }) }
            <h2 id="assumptions">{"Model assumptions"}</h2>
            <ul>
                <li>{"Every simulated number is computed by the simulation core (Rust compiled to WebAssembly), \
                      from the parameters you see, and never fitted per point; seed numbers appear only as \
                      labelled comparisons."}</li>
                <li>{"Runs are deterministic: the same parameters and seed give the same result, in the browser \
                      and in the command-line tool ("}<code>{"skblab run <experiment>"}</code>{"). The test "}
                      <code>{"web/tests/golden.rs"}</code>{" checks this: in headless Chromium the WebAssembly build must reproduce, bit for bit, \
                      the hash of every experiment's default run that the native tests pin."}</li>
                <li>{"Kernel constants carry their Linux names (hover a control for its help); presets stand for \
                      kernel eras and architectures, and any value you set yourself wins over the preset."}</li>
                <li>{"Models simplify: each experiment says what it leaves out in the project's docs/ folder."}</li>
            </ul>
            <h3>{"The experiments"}</h3>
            <dl class="experiments">
                { for skblab_core::experiments().iter().map(|e| html! {
                    <>
                        <dt><code>{ e.id() }</code>{" — "}{ e.title() }</dt>
                        <dd>{ e.summary() }</dd>
                    </>
                }) }
            </dl>
        </div>
    }
}
