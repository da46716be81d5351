// ch12/web/wgsl/59_split.wgsl -- Section 12.1's kernel in WGSL: one
// compare-exchange split, `dist` independent comparisons, one invocation each.
// Launch shape as in 59_bitonic_split_kernel.cu's <<<1, dist>>>: ONE
// workgroup of THREADS = dist invocations (dispatchWorkgroups(1)).
//
// CUDA -> WGSL: threadIdx.x is local_invocation_index; the kernel's arguments
// are a uniform buffer; the block size, a compile-time constant in WGSL, is
// the pipeline-overridable constant THREADS.

override THREADS: u32 = 4u;  // invocations in the one workgroup (blockDim.x)

struct Args {
    dist: u32,
    ascending: u32,
}

@group(0) @binding(0) var<storage, read_write> g_a: array<i32>;
@group(0) @binding(1) var<uniform> args: Args;
// Companion: what each invocation did (0 idle, 1 compared and kept, 2 swapped),
// for the page's picture of the pass.
@group(0) @binding(2) var<storage, read_write> g_did: array<u32>;

@compute @workgroup_size(THREADS)
fn compare_exchange_kernel(@builtin(local_invocation_index) tid: u32) {
    let i = tid;
    if (i >= args.dist) {
        return;
    }
    let lo = g_a[i];
    let hi = g_a[i + args.dist];
    let should_swap = select((lo < hi), (lo > hi), args.ascending != 0u);
    if (should_swap) {
        g_a[i] = hi;
        g_a[i + args.dist] = lo;
    }
    g_did[i] = select(1u, 2u, should_swap);  // companion
}
