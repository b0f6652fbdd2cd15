//! A step-through transport for any frame-by-frame trace: back / step / play-pause / speed /
//! reset / jump to end, a range slider that scrubs, and keys while it has focus.
//!
//! Generic on purpose (the ktls stack walk uses it, the high-order-alloc trace player will):
//! it knows only `n_frames` and `position` and reports a new position through `on_change`;
//! the owner keeps the position. Play advances on a Yew platform timer (no extra crate).
//!
//! Keys work only while focus is inside the transport, because the lesson player binds ← / →
//! on the window to lesson steps: `,` `.` / `j` `k` / ← → step, space plays, Home / End jump.
//! Handled keys stop propagating so the player does not also change step.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::platform::{spawn_local, time::sleep};
use yew::prelude::*;

/// Play speeds offered, in frames per second.
pub const SPEEDS_FPS: &[u32] = &[5, 25, 100, 400, 2000];
/// Index into [`SPEEDS_FPS`] the transport starts with.
const SPEED_DEFAULT: usize = 2;
/// Shortest delay between play ticks; faster speeds take more frames per tick.
const TICK_MIN_MS: u32 = 40;

/// The delay of one play tick and the frames it advances, for `fps` frames per second.
pub fn tick(fps: u32) -> (Duration, usize) {
    let fps = fps.max(1);
    let delay_ms = (1000 / fps).max(TICK_MIN_MS);
    let frames = (fps * delay_ms / 1000).max(1) as usize;
    (Duration::from_millis(delay_ms as u64), frames)
}

/// `position` moved by `delta` frames, kept inside `0..n_frames`.
pub fn moved(position: usize, delta: i64, n_frames: usize) -> usize {
    let last = n_frames.saturating_sub(1) as i64;
    (position as i64 + delta).clamp(0, last.max(0)) as usize
}

#[derive(Properties, PartialEq)]
pub struct TransportProps {
    /// Positions run from 0 to `n_frames - 1`.
    pub n_frames: usize,
    pub position: usize,
    pub on_change: Callback<usize>,
    /// What one frame is called in the position read-out ("step", "event").
    #[prop_or(AttrValue::Static("frame"))]
    pub unit: AttrValue,
}

#[function_component(Transport)]
pub fn transport(props: &TransportProps) -> Html {
    let playing = use_state_eq(|| false);
    let speed = use_state_eq(|| SPEED_DEFAULT);
    // The latest callback, so that the play timer does not restart when the parent re-renders.
    let on_change = use_mut_ref(|| props.on_change.clone());
    *on_change.borrow_mut() = props.on_change.clone();
    use_play_timer(props, playing.clone(), SPEEDS_FPS[*speed], on_change.clone());

    let (n, pos) = (props.n_frames, props.position.min(props.n_frames.saturating_sub(1)));
    let go = {
        let (on_change, playing) = (on_change.clone(), playing.clone());
        move |target: usize| {
            let on_change = on_change.clone();
            let playing = playing.clone();
            Callback::from(move |_: MouseEvent| {
                playing.set(false);
                on_change.borrow().emit(target);
            })
        }
    };
    // Buttons that cannot act are aria-disabled, not disabled: a disabled button drops the
    // keyboard focus to <body> when it disables itself (End, Back at frame 0, Step at the end).
    let off = |cannot: bool| cannot.then_some("true");
    let guard = |cannot: bool, cb: Callback<MouseEvent>| {
        if cannot {
            Callback::from(|_: MouseEvent| {})
        } else {
            cb
        }
    };
    let toggle = {
        let playing = playing.clone();
        let (on_change, at_end) = (on_change.clone(), pos + 1 >= n);
        // Play from the end starts over, as a media player does.
        Callback::from(move |_: MouseEvent| {
            if !*playing && at_end {
                on_change.borrow().emit(0);
            }
            playing.set(!*playing);
        })
    };
    let onkeydown = key_handler(n, pos, playing.clone(), on_change.clone());
    html! {
        <div class="transport" data-testid="transport" role="group" aria-label="Trace player" tabindex="0"
            {onkeydown} aria-keyshortcuts=", . j k Space Home End">
            <div class="transport-buttons">
                <button type="button" class="btn btn-small" onclick={guard(pos == 0, go(0))} aria-disabled={off(pos == 0)}
                    aria-label="Start (first frame)" data-testid="transport-reset">{"Start"}</button>
                <button type="button" class="btn btn-small" onclick={guard(pos == 0, go(moved(pos, -1, n)))}
                    aria-disabled={off(pos == 0)} aria-label="Back one frame" data-testid="transport-back">{"◀ Back"}</button>
                <button type="button" class="btn btn-small btn-primary" onclick={toggle} disabled={n < 2}
                    aria-label={if *playing { "Pause" } else { "Play" }} aria-pressed={playing.to_string()}
                    data-testid="transport-play">{ if *playing { "Pause" } else { "Play" } }</button>
                <button type="button" class="btn btn-small" onclick={guard(pos + 1 >= n, go(moved(pos, 1, n)))}
                    aria-disabled={off(pos + 1 >= n)} aria-label="Step forward one frame" data-testid="transport-step">{"Step ▶"}</button>
                <button type="button" class="btn btn-small" onclick={guard(pos + 1 >= n, go(n.saturating_sub(1)))}
                    aria-disabled={off(pos + 1 >= n)} aria-label="End (last frame)" data-testid="transport-end">{"End"}</button>
                { speed_select(speed) }
            </div>
            { scrubber(n, pos, &props.unit, playing, on_change) }
        </div>
    }
}

/// Advances the position while playing: one timeout per tick, cancelled when anything changes.
#[hook]
fn use_play_timer(
    props: &TransportProps,
    playing: UseStateHandle<bool>,
    fps: u32,
    on_change: Rc<RefCell<Callback<usize>>>,
) {
    let deps = (*playing, props.position, props.n_frames, fps);
    use_effect_with(deps, move |&(is_playing, position, n_frames, fps)| {
        let cancelled = Rc::new(Cell::new(false));
        if is_playing && position + 1 >= n_frames {
            playing.set(false);
        } else if is_playing {
            let (delay, frames) = tick(fps);
            let cancelled = cancelled.clone();
            spawn_local(async move {
                sleep(delay).await;
                if !cancelled.get() {
                    let next = moved(position, frames as i64, n_frames);
                    on_change.borrow().emit(next);
                }
            });
        }
        move || cancelled.set(true)
    });
}

fn key_handler(
    n: usize,
    pos: usize,
    playing: UseStateHandle<bool>,
    on_change: Rc<RefCell<Callback<usize>>>,
) -> Callback<KeyboardEvent> {
    Callback::from(move |e: KeyboardEvent| {
        if e.alt_key() || e.ctrl_key() || e.meta_key() {
            return;
        }
        let tag = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).map(|el| el.tag_name());
        let key = e.key();
        // The speed list, the slider's arrows and a focused button's space keep their native
        // meaning (the slider's arrows scrub, space clicks the button).
        let native = match tag.as_deref() {
            Some("SELECT") => true,
            Some("BUTTON") => key == " ",
            Some("INPUT") => matches!(key.as_str(), "ArrowLeft" | "ArrowRight" | "Home" | "End"),
            _ => false,
        };
        let target = match key.as_str() {
            _ if native => {
                e.stop_propagation();
                return;
            }
            "," | "j" | "ArrowLeft" => Some(moved(pos, -1, n)),
            "." | "k" | "ArrowRight" => Some(moved(pos, 1, n)),
            "Home" => Some(0),
            "End" => Some(n.saturating_sub(1)),
            " " => {
                playing.set(!*playing);
                None
            }
            _ => return,
        };
        e.prevent_default();
        e.stop_propagation();
        if let Some(t) = target {
            playing.set(false);
            on_change.borrow().emit(t);
        }
    })
}

fn speed_select(speed: UseStateHandle<usize>) -> Html {
    let onchange = {
        let speed = speed.clone();
        Callback::from(move |e: Event| {
            if let Some(i) = e.target_dyn_into::<HtmlSelectElement>().and_then(|s| s.value().parse().ok()) {
                speed.set(i);
            }
        })
    };
    html! {
        <label class="transport-speed">
            <span class="visually-hidden">{"Play speed"}</span>
            <select {onchange} aria-label="Play speed" data-testid="transport-speed">
                { for SPEEDS_FPS.iter().enumerate().map(|(i, fps)| html! {
                    <option value={i.to_string()} selected={i == *speed}>{ format!("{fps} /s") }</option>
                }) }
            </select>
        </label>
    }
}

fn scrubber(
    n: usize,
    pos: usize,
    unit: &AttrValue,
    playing: UseStateHandle<bool>,
    on_change: Rc<RefCell<Callback<usize>>>,
) -> Html {
    let oninput = Callback::from(move |e: InputEvent| {
        if let Some(v) = e.target_dyn_into::<HtmlInputElement>().and_then(|i| i.value().parse().ok()) {
            playing.set(false);
            on_change.borrow().emit(v);
        }
    });
    let last = n.saturating_sub(1);
    html! {
        <div class="transport-scrub">
            <input type="range" min="0" max={last.to_string()} step="1" value={pos.to_string()} {oninput}
                aria-label={format!("Position ({unit})")} data-testid="transport-slider" disabled={n < 2} />
            <span class="transport-pos" data-testid="transport-position" aria-live="off">
                { format!("{unit} {pos} / {last}") }
            </span>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moved_stays_in_range() {
        assert_eq!(moved(0, -1, 10), 0);
        assert_eq!(moved(9, 1, 10), 9);
        assert_eq!(moved(3, 4, 10), 7);
        assert_eq!(moved(0, 5, 0), 0);
    }

    #[test]
    fn fast_speeds_take_several_frames_per_tick() {
        assert_eq!(tick(5), (Duration::from_millis(200), 1));
        assert_eq!(tick(100), (Duration::from_millis(40), 4));
        assert_eq!(tick(2000), (Duration::from_millis(40), 80));
    }
}
