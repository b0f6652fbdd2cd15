//! `skb-layout`: the size arithmetic of an sk_buff's head buffer (seed 001).
//!
//! What Linux does (include/linux/skbuff.h, net/core/skbuff.c `__alloc_skb`): a received
//! frame's linear data lives in one kmalloc'd "head" buffer. The buffer holds, in order,
//! NET_SKB_PAD bytes of headroom, the frame (Ethernet header + MTU bytes of payload), some
//! tailroom, and at its very end `struct skb_shared_info`, whose last member is the array of
//! MAX_SKB_FRAGS page fragments:
//!
//! ```text
//!  head                data                     tail   end
//!   |<- NET_SKB_PAD ->|<- 14 + MTU ----------->|<-tail->|<- skb_shared_info ------------->|
//!   |   headroom      | Ethernet hdr + payload | room   | fixed part | frags[MAX_SKB_FRAGS] |
//!   |<----------- SKB_DATA_ALIGN(pad + frame) -------->|<- SKB_DATA_ALIGN(sizeof shinfo)->|
//!   |<------------------------ kmalloc size class (ksize) ------------------------------->|
//! ```
//!
//! Worked example (Ian Campbell, netdev, 7 Dec 2011): with MAX_SKB_FRAGS = 18 and 24-byte
//! frags the shared info is 56 + 18 × 24 = 488 bytes, and 64 + 1514 → 1600 aligned, + 512 =
//! 2112 bytes, which spills from kmalloc-2k into kmalloc-4k. With 16 frags it is 440 bytes
//! (448 aligned) and 64 + 1500 + 14 + 440 = 2018 fits half a page: 1600 + 448 = 2048.
//!
//! What we simplify: we model the kmalloc'd head of `__alloc_skb` only (drivers that build
//! skbs around page fragments, `build_skb` / `napi_alloc_skb`, use the same arithmetic but
//! carve the head out of a page instead of a kmalloc class); kmalloc classes follow SLUB on
//! x86 (8..=2 × PAGE_SIZE with the 96 and 192 classes), larger heads come straight from the
//! page allocator in whole power-of-two pages; truesize uses the post-3.2 rule
//! `ksize(head) + SKB_DATA_ALIGN(sizeof(struct sk_buff))`.
//!
//! Files: `mod.rs` (here: the arithmetic, the presets, the `Model` impl) and `tests.rs` (its
//! unit, snapshot and property tests).

use crate::calibrate::tables::{TableCheck, TableSpec};
use crate::experiment::{Point, ViewSpec};
use crate::model::{Model, ModelInput, Runner, SeedTables};
use crate::output::{Cell, Column, Meaning, ReproCell, ReproRow, Reproduction, Row, RunOutput, TextView};
use crate::params::{Choice, ParamSpec, Params, Value};
use crate::sim::skb::kmalloc_suffix;
pub use crate::sim::skb::{align_up, kmalloc_class, page_alloc_bytes};
use crate::sources;
use serde::Serialize;

/// Length of an Ethernet header (ETH_HLEN).
pub const ETH_HLEN_BYTES: u64 = 14;

crate::choice_enum! {
    /// How MAX_SKB_FRAGS is derived from PAGE_SIZE in a kernel era.
    pub enum FragsFormula {
        /// skbuff.h around 2011 – 2012 (earlier 2.6 copies: +2 with no floor):
        /// `65536/PAGE_SIZE + 2`, at least 16.
        Plus2Floor16 = "plus2_floor16",
        /// From about 2012 to 6.3 (the commit that changed +2 to +1 is unconfirmed):
        /// `65536/PAGE_SIZE + 1`, at least 16.
        Plus1Floor16 = "plus1_floor16",
        /// 6.4+: `CONFIG_MAX_SKB_FRAGS` (17..=45, default 17).
        Config = "config",
    }
}

impl FragsFormula {
    /// MAX_SKB_FRAGS for `page_size_bytes` (and `config_frags` under [`FragsFormula::Config`]).
    pub fn max_skb_frags(self, page_size_bytes: u64, config_frags: u64) -> u64 {
        match self {
            FragsFormula::Plus2Floor16 => (65536 / page_size_bytes + 2).max(16),
            FragsFormula::Plus1Floor16 => (65536 / page_size_bytes + 1).max(16),
            FragsFormula::Config => config_frags,
        }
    }
}

/// The inputs of the layout arithmetic, all resolved (no "0 = from preset" left).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayoutInput {
    pub page_size_bytes: u64,
    pub formula: FragsFormula,
    pub config_max_skb_frags: u64,
    /// Explicit MAX_SKB_FRAGS, or 0 to use `formula`.
    pub max_skb_frags: u64,
    pub frag_bytes: u64,
    pub shinfo_fixed_bytes: u64,
    pub cacheline_bytes: u64,
    pub net_skb_pad_bytes: u64,
    pub net_ip_align_bytes: u64,
    pub mtu_bytes: u64,
    pub sk_buff_bytes: u64,
}

/// One labelled span of the head buffer, for the to-scale diagram.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Segment {
    pub name: &'static str,
    pub offset_bytes: u64,
    pub size_bytes: u64,
}

/// Everything the arithmetic yields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Layout {
    pub max_skb_frags: u64,
    pub shinfo_bytes: u64,
    pub shinfo_aligned_bytes: u64,
    /// Ethernet header + MTU + NET_IP_ALIGN.
    pub frame_bytes: u64,
    /// SKB_DATA_ALIGN(NET_SKB_PAD + frame).
    pub data_aligned_bytes: u64,
    /// What `__alloc_skb` asks kmalloc for: aligned data + aligned shinfo.
    pub head_bytes: u64,
    /// Ian's unaligned sum: NET_SKB_PAD + frame + sizeof(shinfo).
    pub head_unaligned_bytes: u64,
    /// The kmalloc object size (ksize) the head lands in, or whole pages above the largest class.
    pub kmalloc_bucket_bytes: u64,
    /// True if the head comes from the page allocator rather than a kmalloc cache.
    pub from_page_allocator: bool,
    /// `ksize(head) + SKB_DATA_ALIGN(sizeof(struct sk_buff))`.
    pub truesize_bytes: u64,
    /// Bytes of the object that are neither headroom, frame nor shared info.
    pub waste_bytes: u64,
    /// Tailroom after the frame once ksize() has widened the buffer.
    pub tailroom_bytes: u64,
    /// How many such heads fit in one page (0 if a head is larger than a page).
    pub heads_per_page: u64,
    pub fits_half_page: bool,
}

impl LayoutInput {
    pub fn effective_max_skb_frags(&self) -> u64 {
        if self.max_skb_frags != 0 {
            self.max_skb_frags
        } else {
            self.formula.max_skb_frags(self.page_size_bytes, self.config_max_skb_frags)
        }
    }

    /// The arithmetic of `__alloc_skb` for one received frame.
    pub fn layout(&self) -> Layout {
        let max_skb_frags = self.effective_max_skb_frags();
        let shinfo_bytes = self.shinfo_fixed_bytes + max_skb_frags * self.frag_bytes;
        let shinfo_aligned_bytes = align_up(shinfo_bytes, self.cacheline_bytes);
        let frame_bytes = ETH_HLEN_BYTES + self.mtu_bytes + self.net_ip_align_bytes;
        let data_aligned_bytes = align_up(self.net_skb_pad_bytes + frame_bytes, self.cacheline_bytes);
        let head_bytes = data_aligned_bytes + shinfo_aligned_bytes;
        let head_unaligned_bytes = self.net_skb_pad_bytes + frame_bytes + shinfo_bytes;
        let class = kmalloc_class(head_bytes, self.page_size_bytes);
        let kmalloc_bucket_bytes = class.unwrap_or_else(|| page_alloc_bytes(head_bytes, self.page_size_bytes));
        let sk_buff_aligned_bytes = align_up(self.sk_buff_bytes, self.cacheline_bytes);
        Layout {
            max_skb_frags,
            shinfo_bytes,
            shinfo_aligned_bytes,
            frame_bytes,
            data_aligned_bytes,
            head_bytes,
            head_unaligned_bytes,
            kmalloc_bucket_bytes,
            from_page_allocator: class.is_none(),
            truesize_bytes: kmalloc_bucket_bytes + sk_buff_aligned_bytes,
            waste_bytes: kmalloc_bucket_bytes - head_unaligned_bytes,
            tailroom_bytes: kmalloc_bucket_bytes - shinfo_aligned_bytes - self.net_skb_pad_bytes - frame_bytes,
            heads_per_page: self.page_size_bytes / kmalloc_bucket_bytes,
            fits_half_page: head_bytes <= self.page_size_bytes / 2,
        }
    }

    /// The head buffer as consecutive spans, start to end of the kmalloc object: headroom,
    /// Ethernet header, payload, tailroom, the shared info's fixed part, its frags array, and
    /// the alignment padding after the shared info. The sizes add up to the object size.
    pub fn segments(&self) -> Vec<Segment> {
        let l = self.layout();
        let frags_bytes = l.max_skb_frags * self.frag_bytes;
        let sizes: [(&'static str, u64); 7] = [
            ("headroom", self.net_skb_pad_bytes + self.net_ip_align_bytes),
            ("ethernet", ETH_HLEN_BYTES),
            ("payload", self.mtu_bytes),
            ("tailroom", l.tailroom_bytes),
            ("shinfo", self.shinfo_fixed_bytes),
            ("frags", frags_bytes),
            ("shinfo_pad", l.shinfo_aligned_bytes - l.shinfo_bytes),
        ];
        let mut offset_bytes = 0;
        sizes
            .iter()
            .map(|&(name, size_bytes)| {
                let s = Segment { name, offset_bytes, size_bytes };
                offset_bytes += size_bytes;
                s
            })
            .collect()
    }
}

/// A kernel era / architecture: the values every parameter takes unless set explicitly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Preset {
    pub name: &'static str,
    pub label: &'static str,
    pub input: LayoutInput,
}

const fn x86_64(formula: FragsFormula, frag_bytes: u64, shinfo_fixed_bytes: u64, sk_buff_bytes: u64) -> LayoutInput {
    LayoutInput {
        page_size_bytes: 4096,
        formula,
        config_max_skb_frags: 17,
        max_skb_frags: 0,
        frag_bytes,
        shinfo_fixed_bytes,
        cacheline_bytes: 64,
        net_skb_pad_bytes: 64,
        net_ip_align_bytes: 0,
        mtu_bytes: 1500,
        sk_buff_bytes,
    }
}

/// The presets; docs/skb-layout.md gives the source of every number.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "linux-2011-x86_64",
        label: "Linux 3.1/3.2, x86_64 (Dec 2011)",
        input: x86_64(FragsFormula::Plus2Floor16, 16, 56, 232),
    },
    Preset {
        name: "frag-destructor-2011",
        label: "2011 frag-destructor proposal: 24-byte frags",
        input: x86_64(FragsFormula::Plus2Floor16, 24, 56, 232),
    },
    Preset {
        name: "linux-4.x-6.3-x86_64",
        label: "Linux 4.x – 6.3, x86_64",
        input: x86_64(FragsFormula::Plus1Floor16, 16, 48, 232),
    },
    Preset {
        name: "linux-6.4-x86_64",
        label: "Linux 6.4+, x86_64 (CONFIG_MAX_SKB_FRAGS)",
        input: x86_64(FragsFormula::Config, 16, 48, 224),
    },
    Preset {
        name: "arm64-64k",
        label: "Linux 4.x – 6.3, arm64 with 64 KiB pages (6.4+: set frags_formula = config)",
        input: LayoutInput {
            page_size_bytes: 65536,
            formula: FragsFormula::Plus1Floor16,
            config_max_skb_frags: 17,
            max_skb_frags: 0,
            frag_bytes: 16,
            shinfo_fixed_bytes: 48,
            cacheline_bytes: 64,
            net_skb_pad_bytes: 64,
            net_ip_align_bytes: 2,
            mtu_bytes: 1500,
            sk_buff_bytes: 232,
        },
    },
];

/// Index of the default preset: recent x86_64, what the pahole test compares against.
pub const DEFAULT_PRESET: usize = 3;

pub fn preset(name: &str) -> &'static Preset {
    PRESETS.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("bug: unknown preset '{name}'"))
}

/// The presets' names, in order, read off [`PRESETS`] (the options of the `preset` parameter).
const PRESET_NAMES: &[&str] = &{
    let mut names = [""; PRESETS.len()];
    let mut i = 0;
    while i < PRESETS.len() {
        names[i] = PRESETS[i].name;
        i += 1;
    }
    names
};

/// The registry entry.
pub struct SkbLayout;

pub const ID: &str = "skb-layout";

crate::params_input! {
    /// The parameters as set, typed (each field is the parameter of its name);
    /// [`Input`] resolves the preset and names them as the arithmetic does.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct LayoutParams {
        pub preset: String,
        pub page_size: u64,
        pub frags_formula: FragsFormula,
        pub config_max_skb_frags: u64,
        pub max_skb_frags: u64,
        pub frag_bytes: u64,
        pub shinfo_fixed_bytes: u64,
        pub cacheline_bytes: u64,
        pub net_skb_pad: u64,
        pub net_ip_align: u64,
        pub mtu: u64,
        pub sk_buff_bytes: u64,
    }
}

/// The model's input: the chosen preset's name and the resolved arithmetic (preset values
/// where a parameter was not set explicitly).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub preset: &'static str,
    pub layout: LayoutInput,
}

impl From<&Params> for Input {
    fn from(params: &Params) -> Input {
        let p = LayoutParams::from(&Model::resolve(&SkbLayout, params));
        Input {
            preset: preset(&p.preset).name,
            layout: LayoutInput {
                page_size_bytes: p.page_size,
                formula: p.frags_formula,
                config_max_skb_frags: p.config_max_skb_frags,
                max_skb_frags: p.max_skb_frags,
                frag_bytes: p.frag_bytes,
                shinfo_fixed_bytes: p.shinfo_fixed_bytes,
                cacheline_bytes: p.cacheline_bytes,
                net_skb_pad_bytes: p.net_skb_pad,
                net_ip_align_bytes: p.net_ip_align,
                mtu_bytes: p.mtu,
                sk_buff_bytes: p.sk_buff_bytes,
            },
        }
    }
}

impl ModelInput for Input {
    fn names() -> &'static [&'static str] {
        LayoutParams::NAMES
    }
}

impl SkbLayout {
    /// The resolved arithmetic for validated `params` (the web's diagram and sweeps).
    pub fn input(params: &Params) -> LayoutInput {
        Input::from(params).layout
    }

    fn preset_values(input: &LayoutInput) -> Vec<(&'static str, Value)> {
        let int = |v: u64| Value::Int(v as i64);
        vec![
            ("page_size", int(input.page_size_bytes)),
            ("frags_formula", Value::Choice(input.formula.name().to_string())),
            ("config_max_skb_frags", int(input.config_max_skb_frags)),
            ("max_skb_frags", int(input.max_skb_frags)),
            ("frag_bytes", int(input.frag_bytes)),
            ("shinfo_fixed_bytes", int(input.shinfo_fixed_bytes)),
            ("cacheline_bytes", int(input.cacheline_bytes)),
            ("net_skb_pad", int(input.net_skb_pad_bytes)),
            ("net_ip_align", int(input.net_ip_align_bytes)),
            ("mtu", int(input.mtu_bytes)),
            ("sk_buff_bytes", int(input.sk_buff_bytes)),
        ]
    }
}

/// The result columns, every one exact arithmetic on the layout.
const COLUMNS: [(&str, &str); 15] = [
    ("preset", ""),
    ("page_size_bytes", "bytes"),
    ("max_skb_frags", "frags"),
    ("shinfo_bytes", "bytes"),
    ("shinfo_aligned_bytes", "bytes"),
    ("frame_bytes", "bytes"),
    ("head_unaligned_bytes", "bytes"),
    ("head_bytes", "bytes"),
    ("kmalloc_bucket_bytes", "bytes"),
    ("from_page_allocator", ""),
    ("truesize_bytes", "bytes"),
    ("waste_bytes", "bytes"),
    ("tailroom_bytes", "bytes"),
    ("heads_per_page", "heads"),
    ("fits_half_page", ""),
];

impl Model for SkbLayout {
    type Input = Input;
    /// A closed form: the layout is the point's only figure.
    type Worlds = Layout;

    const ID: &'static str = ID;
    const TITLE: &'static str = "How big is an sk_buff head?";
    const SUMMARY: &'static str = "MAX_SKB_FRAGS, sizeof(skb_shared_info), SKB_DATA_ALIGN and the kmalloc class of a received frame's head (seed 001).";

    fn specs(&self) -> Vec<ParamSpec> {
        let d = &PRESETS[DEFAULT_PRESET].input;
        vec![
            ParamSpec::choice("preset", PRESET_NAMES, DEFAULT_PRESET)
                .help("Kernel era and architecture; every parameter you do not set takes the preset's value."),
            ParamSpec::pow2("page_size", "bytes", d.page_size_bytes as i64, (4096, 65536))
                .help("Base page size (4 KiB on x86_64; 16 or 64 KiB on some arm64 kernels).")
                .kernel("PAGE_SIZE"),
            ParamSpec::choice_of("frags_formula", FragsFormula::Config)
                .help("How MAX_SKB_FRAGS follows from PAGE_SIZE: 65536/PAGE_SIZE+2, at least 16 (2011), +1, at least 16 (from about 2012 to 6.3), or the 6.4 Kconfig option (every page size).")
                .kernel("MAX_SKB_FRAGS"),
            ParamSpec::int("config_max_skb_frags", "frags", d.config_max_skb_frags as i64, (17, 45, 1))
                .help("CONFIG_MAX_SKB_FRAGS (Linux 6.4+), used when frags_formula = config.")
                .kernel("CONFIG_MAX_SKB_FRAGS"),
            ParamSpec::int("max_skb_frags", "frags", 0, (0, 64, 1))
                .help("Set MAX_SKB_FRAGS directly; 0 derives it from the formula.")
                .kernel("MAX_SKB_FRAGS"),
            ParamSpec::int("frag_bytes", "bytes", d.frag_bytes as i64, (4, 64, 4))
                .help("sizeof(skb_frag_t): 16 on 64-bit since 3.x; 24 with the 2011 destructor pointer.")
                .kernel("sizeof(skb_frag_t)"),
            ParamSpec::int("shinfo_fixed_bytes", "bytes", d.shinfo_fixed_bytes as i64, (0, 256, 4))
                .help("Bytes of struct skb_shared_info before its frags array (56 in 2011, 48 today on x86_64).")
                .kernel("offsetof(struct skb_shared_info, frags)"),
            ParamSpec::pow2("cacheline_bytes", "bytes", d.cacheline_bytes as i64, (16, 256))
                .help("Alignment of SKB_DATA_ALIGN.")
                .kernel("SMP_CACHE_BYTES"),
            ParamSpec::int("net_skb_pad", "bytes", d.net_skb_pad_bytes as i64, (0, 256, 8))
                .help("Headroom reserved in front of a received frame.")
                .kernel("NET_SKB_PAD"),
            ParamSpec::int("net_ip_align", "bytes", d.net_ip_align_bytes as i64, (0, 2, 2))
                .help("Extra headroom so the IP header is 4-byte aligned (0 on x86).")
                .kernel("NET_IP_ALIGN"),
            ParamSpec::int("mtu", "bytes", d.mtu_bytes as i64, (68, 65535, 1))
                .help("Largest IP packet on the link; the frame adds a 14-byte Ethernet header.")
                .kernel("dev->mtu"),
            ParamSpec::int("sk_buff_bytes", "bytes", d.sk_buff_bytes as i64, (128, 512, 8))
                .help("sizeof(struct sk_buff), which truesize also charges.")
                .kernel("sizeof(struct sk_buff)"),
        ]
    }

    fn resolve(&self, params: &Params) -> Params {
        let mut out = params.clone();
        let chosen = preset(params.choice("preset"));
        for (name, value) in SkbLayout::preset_values(&chosen.input) {
            if !params.is_explicit(name) {
                out.set(name, value).expect("preset values are inside the spec");
                out.clear_explicit(name);
            }
        }
        out
    }

    fn columns(&self, _input: &Input) -> Vec<Column> {
        COLUMNS.iter().map(|&(name, unit)| Column::new(name, unit)).collect()
    }

    fn worlds(&self, input: &Input, _point: &Point, _seed: u64, _runner: &mut Runner) -> Layout {
        input.layout.layout()
    }

    fn row(&self, input: &Input, _point: &Point, l: Layout) -> Row {
        let int = |v: u64| Cell::Int(v as i64);
        vec![
            Cell::Text(input.preset.to_string()),
            int(input.layout.page_size_bytes),
            int(l.max_skb_frags),
            int(l.shinfo_bytes),
            int(l.shinfo_aligned_bytes),
            int(l.frame_bytes),
            int(l.head_unaligned_bytes),
            int(l.head_bytes),
            int(l.kmalloc_bucket_bytes),
            Cell::Bool(l.from_page_allocator),
            int(l.truesize_bytes),
            int(l.waste_bytes),
            int(l.tailroom_bytes),
            int(l.heads_per_page),
            Cell::Bool(l.fits_half_page),
        ]
    }

    /// Arithmetic, no simulation: no events.
    fn events(&self, _input: &Input, _point: &Point) -> u64 {
        0
    }

    fn meanings(&self, _input: &Input) -> Vec<Meaning> {
        COLUMNS.iter().map(|(n, _)| Meaning::always(n, "arithmetic on the layout: exact")).collect()
    }

    fn views(&self) -> Vec<ViewSpec> {
        vec![
            ViewSpec::Custom { id: "diagram" },
            ViewSpec::Custom { id: "chart" },
            ViewSpec::Custom { id: "frags-chart" },
            ViewSpec::Compare { id: "seed" },
        ]
    }

    fn finish(&self, input: &Input, seed: u64, rows: Vec<Row>) -> RunOutput {
        let mut out = RunOutput::new(ID, seed, self.columns(input));
        for row in rows {
            out.push_row(row);
        }
        let text = render_segments(&input.layout);
        out.views.push(TextView::new("segments", "head buffer (offsets in bytes)", text));
        out
    }

    crate::model::capabilities!(seed_tables);
}

impl SeedTables<SkbLayout> for SkbLayout {
    fn compare(&self, _input: &Input, _output: &RunOutput) -> Option<Reproduction> {
        Some(reproduce())
    }

    fn tables(&self) -> Vec<TableSpec> {
        let numbers = reproduce().rows.iter().map(|r| r.cells.len() as u32).sum();
        vec![TableSpec {
            experiment: ID,
            table: "seed001-layout",
            title: "seed 001: MAX_SKB_FRAGS, shinfo and head sizes of the 24-byte-frag era",
            targets: numbers,
            arithmetic: true,
            fitted: Vec::new(),
        }]
    }

    fn check_table(&self, table: &str, _seeds: &[u64]) -> Option<TableCheck> {
        (table == "seed001-layout").then(|| TableCheck::from_reproduction(&reproduce()))
    }

    fn reproduce(&self, _seed: u64) -> Option<Reproduction> {
        Some(reproduce())
    }
}

/// The head buffer as a pahole-like listing of spans.
fn render_segments(input: &LayoutInput) -> String {
    let l = input.layout();
    let mut s = String::new();
    for seg in input.segments() {
        s.push_str(&format!("{:>6} {:>6}  {}\n", seg.offset_bytes, seg.size_bytes, seg.name));
    }
    let class = if l.from_page_allocator {
        format!("page allocator, {} bytes", l.kmalloc_bucket_bytes)
    } else {
        format!("kmalloc-{}", kmalloc_suffix(l.kmalloc_bucket_bytes))
    };
    s.push_str(&format!("/* object: {} bytes ({class}) */\n", l.kmalloc_bucket_bytes));
    s
}

/// Seed 001's figures beside the model's.
fn reproduce() -> Reproduction {
    let base = preset("frag-destructor-2011").input.clone();
    let eighteen = base.layout();
    let sixteen = LayoutInput { max_skb_frags: 16, ..base }.layout();
    let cell = |metric, measured: u64, simulated: u64| ReproCell {
        metric,
        measured: measured as f64,
        simulated: simulated as f64,
        spread: None,
    };
    Reproduction {
        experiment: ID,
        citation: sources::SEED_001,
        key_name: "setting",
        rows: vec![
            ReproRow {
                label: "24-byte frags, 65536/4096+2".to_string(),
                cells: vec![cell("max_skb_frags", 18, eighteen.max_skb_frags), cell("shinfo_bytes", 488, eighteen.shinfo_bytes)],
            },
            ReproRow {
                label: "24-byte frags, MAX_SKB_FRAGS=16".to_string(),
                cells: vec![
                    cell("shinfo_bytes", 440, sixteen.shinfo_bytes),
                    cell("head_unaligned_bytes", 2018, sixteen.head_unaligned_bytes),
                ],
            },
        ],
        notes: vec![
            format!(
                "18 frags: head {} B aligned -> kmalloc-{}; 16 frags: head {} B aligned -> kmalloc-{} (half a page: {})",
                eighteen.head_bytes,
                kmalloc_suffix(eighteen.kmalloc_bucket_bytes),
                sixteen.head_bytes,
                kmalloc_suffix(sixteen.kmalloc_bucket_bytes),
                sixteen.fits_half_page
            ),
            "48 bytes saved = 2 frags x 24 bytes (the seed: \"would save 48 bytes on amd64\")".to_string(),
        ],
    }
}

#[cfg(test)]
mod tests;
