// ch12/web/wgsl/sort_global.wgsl -- one step of the network whose distance j
// spans tiles (j >= 1024), as ch12/extras/glsl/bitonic_global.comp: no
// workgroup barrier can order it, so each such step is a dispatch of its own
// over the whole buffer, one invocation per pair; the end of a dispatch orders
// it before the next. The buffer holds float bits; pairs compare by totalOrder.
// The page may split one such dispatch into several over ranges of the pairs
// (pair_base: the first pair of this one), so that a long sort on a slow
// adapter can be cancelled between them.

struct Step {
    k: u32,          // the stage: the size of the bitonic runs being merged
    j: u32,          // the distance
    pair_base: u32,  // the first pair of this dispatch (the page's split dispatches)
}

@group(0) @binding(0) var<storage, read_write> elements: array<u32>;  // float bits
@group(0) @binding(1) var<uniform> args: Step;                         // one slot per dispatch

fn order_key(bits: u32) -> u32 {
    return select(bits | 0x80000000u, ~bits, (bits & 0x80000000u) != 0u);
}

@compute @workgroup_size(256)
fn bitonic_global(@builtin(global_invocation_id) id: vec3<u32>) {
    let t = args.pair_base + id.x;                 // pair number: n/2 of them
    let i = 2u * t - (t & (args.j - 1u));          // the lower index, bit j clear
    let partner = i ^ args.j;
    let ascending = (i & args.k) == 0u;

    let bits_i = elements[i];
    let bits_partner = elements[partner];
    if ((order_key(bits_i) > order_key(bits_partner)) == ascending) {
        elements[i] = bits_partner;
        elements[partner] = bits_i;
    }
}
