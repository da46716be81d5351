// ch12/web/wgsl/63_sort_pass.wgsl -- Section 12.3's kernel in WGSL: one pass
// (k, j) of the iterative bitonic sort. As in 63_bitonic_sort_iterative.cu
// (one <<<1, n>>> launch per (k, j)), the page dispatches ONE workgroup of N
// invocations per pass, one dispatch after another: the end of a dispatch is
// the full synchronisation the next pass needs. Between dispatches the page
// copies the array aside, so it can show what the GPU left after each one.
//
// TRAP_NO_PAIR_GUARD = true is ch12/traps/63_trap_no_pair_guard.cu: the
// guard `if (l > i)` is gone, so invocations i and i ^ j both read and write
// the same two elements in the same dispatch -- a data race, whose outcome
// WGSL does not define.

override N: u32 = 16u;                      // invocations in the one workgroup (blockDim.x = n)
override TRAP_NO_PAIR_GUARD: bool = false;  // the COMMON TRAP of Section 12.3

struct Args {
    n: u32,
    k: u32,
    j: u32,
    pass_index: u32,  // companion: which row of g_did this dispatch fills
}

@group(0) @binding(0) var<storage, read_write> g_a: array<i32>;
@group(0) @binding(1) var<uniform> args: Args;  // one slot per dispatch (dynamic offset)
// Companion: what each invocation did (0 idle, 1 compared and kept, 2 swapped).
@group(0) @binding(2) var<storage, read_write> g_did: array<u32>;

@compute @workgroup_size(N)
fn bitonic_sort_kernel(@builtin(local_invocation_index) i: u32) {
    if (i >= args.n) {
        return;
    }
    let l = i ^ args.j;
    var did = 0u;  // companion
    if (l > i || TRAP_NO_PAIR_GUARD) {  // <-- THE TRAP drops the test: the book's `if (l > i)`
        let ascending = (i & args.k) == 0u;
        let a_i = g_a[i];
        let a_l = g_a[l];
        let should_swap = select((a_i < a_l), (a_i > a_l), ascending);
        if (should_swap) {
            g_a[i] = a_l;
            g_a[l] = a_i;
        }
        did = select(1u, 2u, should_swap);
    }
    g_did[args.pass_index * args.n + i] = did;  // companion
}
