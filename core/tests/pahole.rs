//! Compares the "recent x86_64" preset of `skb-layout` with the running kernel's real
//! structure sizes, read by `pahole` (Debian package `dwarves`, installed by
//! scripts/setup.sh) from the kernel's BTF at /sys/kernel/btf/vmlinux.

use skblab_core::experiments::skb_layout::{preset, LayoutInput};
use skblab_core::machine::tools;
use std::process::Command;

const BTF: &str = "/sys/kernel/btf/vmlinux";

/// `pahole -C <name>` output, or a clear failure.
fn pahole(name: &str) -> String {
    let out = Command::new("pahole")
        .args(["-C", name, BTF])
        .output()
        .unwrap_or_else(|e| panic!("cannot run pahole ({e}); install it with: apt-get install dwarves"));
    assert!(out.status.success(), "pahole -C {name} {BTF} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

/// `sizeof` of the struct a pahole dump prints (the shared parser of `skblab measure`).
fn struct_size(dump: &str) -> u64 {
    tools::pahole_size(dump).unwrap_or_else(|e| panic!("{e}")) as u64
}

/// (array length, offset) of the `frags[N]` member.
fn frags_member(dump: &str) -> (u64, u64) {
    let (offset, n) = tools::pahole_array(dump, "frags").unwrap_or_else(|e| panic!("{e}"));
    (n, offset)
}

#[test]
fn recent_x86_64_preset_matches_the_running_kernel() {
    assert!(
        std::path::Path::new(BTF).exists(),
        "{BTF} is missing: this test needs a Linux kernel with CONFIG_DEBUG_INFO_BTF"
    );
    let shinfo = pahole("skb_shared_info");
    let (n_frags, fixed_bytes) = frags_member(&shinfo);
    let frag_bytes = struct_size(&pahole("skb_frag"));
    let sk_buff_bytes = struct_size(&pahole("sk_buff"));

    let model = preset("linux-6.4-x86_64").input.clone();
    assert_eq!(model.frag_bytes, frag_bytes, "sizeof(skb_frag_t)");
    assert_eq!(model.shinfo_fixed_bytes, fixed_bytes, "offsetof(skb_shared_info, frags)");
    // The kernel's CONFIG_MAX_SKB_FRAGS is a build choice (17 by default).
    let model = LayoutInput { config_max_skb_frags: n_frags, ..model };
    let l = model.layout();
    assert_eq!(l.max_skb_frags, n_frags);
    assert_eq!(l.shinfo_bytes, struct_size(&shinfo), "sizeof(struct skb_shared_info)");
    assert_eq!(
        model.sk_buff_bytes.div_ceil(64),
        sk_buff_bytes.div_ceil(64),
        "sizeof(struct sk_buff) = {sk_buff_bytes}: a different cache-line count changes truesize"
    );
}
