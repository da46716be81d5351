// ch12/web/wgsl/sort_local.wgsl -- the workgroup bitonic sort of the GLSL
// extra (ch12/extras/glsl/bitonic_local.comp) in WGSL: 1024-key tiles in
// workgroup memory, partner i ^ j, direction from the GLOBAL index
// ((base + i) & k) == 0, the pair mapping i = 2t - (t & (j - 1)), and a
// workgroupBarrier() after every step.
//
// The uniform picks what a dispatch does, as the GLSL push constant does:
// k_outer = 0 sorts each tile through every stage k = 2 .. 1024 (neighbouring
// tiles come out in opposite directions, ready to be merged); k_outer = K > 1024
// runs only the tail of stage K, the distances 512 .. 1, after sort_global.wgsl
// has done the distances that span tiles.
//
// The page may split one dispatch into several, each over a range of the
// tiles (so that a long sort on a slow adapter can be cancelled between
// them): tile_base is the first tile of this dispatch's range. The GLSL
// host dispatches all tiles at once, which is tile_base = 0.
//
// Two differences from the GLSL shader:
//  * WORKGROUP_SIZE: the GLSL design has 512 invocations, one per pair of the
//    tile; WebGPU's default limit is 256 invocations per workgroup, which many
//    adapters do not raise (SwiftShader among them). The page asks for 512
//    where the adapter allows it and otherwise runs 256, each invocation then
//    taking pairs t and t + 256 of every step.
//  * The buffer holds the floats' BITS (array<u32>), and the tile holds their
//    totalOrder keys, so no value ever passes through an f32 variable, where
//    WGSL allows NaN payloads and denormals to be changed. The keys are made
//    once on the way in and turned back into bits on the way out.
//    totalOrder: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.

const NUM_ELEMENTS: u32 = 1024u;
const NUM_PAIRS: u32 = 512u;
override WORKGROUP_SIZE: u32 = 512u;  // 512, or 256 where the adapter allows no more

struct Stage {
    k_outer: u32,    // 0: sort each tile from scratch; K: the tail of stage K
    tile_base: u32,  // the first tile of this dispatch (the page's split dispatches)
}

@group(0) @binding(0) var<storage, read_write> elements: array<u32>;  // float bits
@group(0) @binding(1) var<uniform> stage: Stage;                       // one slot per dispatch

var<workgroup> keys: array<u32, NUM_ELEMENTS>;

// A float's bits -> a uint whose order is totalOrder, and back.
fn order_key(bits: u32) -> u32 {
    return select(bits | 0x80000000u, ~bits, (bits & 0x80000000u) != 0u);
}
fn from_key(key: u32) -> u32 {
    return select(~key, key & 0x7fffffffu, (key & 0x80000000u) != 0u);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn bitonic_local(@builtin(local_invocation_index) local_id: u32,
                 @builtin(workgroup_id) group: vec3<u32>) {
    let base = (stage.tile_base + group.x) * NUM_ELEMENTS;

    // Step 1: load the tile into workgroup memory, as keys
    for (var e = local_id; e < NUM_ELEMENTS; e += WORKGROUP_SIZE) {
        keys[e] = order_key(elements[base + e]);
    }
    workgroupBarrier();

    // Step 2: every stage up to 1024, or one stage's tail
    let k_first = select(stage.k_outer, 2u, stage.k_outer == 0u);
    let k_last = select(stage.k_outer, NUM_ELEMENTS, stage.k_outer == 0u);
    for (var k = k_first; k <= k_last; k <<= 1u) {
        for (var j = min(k >> 1u, NUM_PAIRS); j > 0u; j >>= 1u) {
            for (var t = local_id; t < NUM_PAIRS; t += WORKGROUP_SIZE) {
                let i = 2u * t - (t & (j - 1u));  // bit j of i is clear: partner > i
                let partner = i ^ j;
                let ascending = ((base + i) & k) == 0u;
                let key_i = keys[i];
                let key_partner = keys[partner];
                if ((key_i > key_partner) == ascending) {
                    keys[i] = key_partner;
                    keys[partner] = key_i;
                }
            }
            workgroupBarrier();
        }
    }

    // Step 3: write the tile back, as bits
    for (var e = local_id; e < NUM_ELEMENTS; e += WORKGROUP_SIZE) {
        elements[base + e] = from_key(keys[e]);
    }
}
