//! Exports under views: "SVG" of a drawn diagram — the first `<svg>` of the view the button
//! sits under, written as a standalone file with the page's stylesheet inside (the drawings
//! colour their parts through CSS classes and variables), in the current colour scheme — and
//! "CSV" of the rows a view shows ([`CsvExport`]; every canvas chart has one built in).

use crate::browser;
use crate::charts::table::DataTable;
use std::rc::Rc;
use yew::prelude::*;

/// Saves `table` as `{name}.csv`.
pub fn download_csv(name: &str, table: &DataTable) {
    browser::download_text(&format!("{name}.csv"), "text/csv", &table.to_csv());
}

#[derive(Properties, PartialEq)]
pub struct CsvExportProps {
    /// File name without extension; the button's test id is `csv-{name}`.
    pub name: AttrValue,
    /// The rows the view shows (a custom view's table or the data of an SVG chart).
    pub table: Rc<DataTable>,
}

/// A "CSV" button for a custom view's own rows: the one way a view that draws a table or a
/// chart without the [`crate::components::chart::Chart`] component offers its numbers.
#[function_component(CsvExport)]
pub fn csv_export(props: &CsvExportProps) -> Html {
    let onclick = {
        let (name, table) = (props.name.clone(), props.table.clone());
        Callback::from(move |_: MouseEvent| download_csv(&name, &table))
    };
    html! {
        <button class="btn btn-small csv-export" type="button" {onclick}
            data-testid={format!("csv-{}", props.name)}>{"CSV"}</button>
    }
}

#[derive(Properties, PartialEq)]
pub struct SvgExportProps {
    /// File name without extension.
    pub name: AttrValue,
}

#[function_component(SvgExport)]
pub fn svg_export(props: &SvgExportProps) -> Html {
    let button = use_node_ref();
    let onclick = {
        let (button, name) = (button.clone(), props.name.clone());
        Callback::from(move |_: MouseEvent| {
            let svg = button
                .cast::<web_sys::Element>()
                .and_then(|b| b.closest(".view-wrap").ok().flatten())
                .and_then(|w| w.query_selector("svg").ok().flatten());
            if let Some(svg) = svg {
                browser::download_text(&format!("{name}.svg"), "image/svg+xml", &standalone(&svg));
            }
        })
    };
    html! {
        <button ref={button} class="btn btn-small svg-export" type="button" {onclick}
            data-testid={format!("svg-{}", props.name)}>{"SVG"}</button>
    }
}

/// `svg` as a file of its own: the SVG namespace, and the page's CSS rules in a `<style>`.
fn standalone(svg: &web_sys::Element) -> String {
    let markup = svg.outer_html();
    let open_end = markup.find('>').unwrap_or(0);
    let (open, rest) = markup.split_at(open_end);
    let ns = if open.contains("xmlns=") { "" } else { " xmlns=\"http://www.w3.org/2000/svg\"" };
    format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{open}{ns}>\n<style>{}</style>{}", page_css(), &rest[1..])
}

/// The text of every CSS rule of the page's stylesheets (same-origin only).
fn page_css() -> String {
    let get = |o: &wasm_bindgen::JsValue, k: &str| js_sys::Reflect::get(o, &wasm_bindgen::JsValue::from_str(k)).ok();
    let Some(sheets) = web_sys::window().and_then(|w| w.document()).and_then(|d| get(&d, "styleSheets")) else {
        return String::new();
    };
    let mut css = String::new();
    for sheet in js_sys::Array::from(&sheets).iter() {
        let Some(rules) = get(&sheet, "cssRules").filter(|r| !r.is_undefined() && !r.is_null()) else { continue };
        for rule in js_sys::Array::from(&rules).iter() {
            if let Some(text) = get(&rule, "cssText").and_then(|t| t.as_string()) {
                // "]]>" cannot occur in CSS we write; escape "<" so the text stays XML.
                css.push_str(&text.replace('<', "\\3C "));
                css.push('\n');
            }
        }
    }
    css
}
