// ch12/web/wgsl/61_merge.wgsl -- Section 12.2's kernel in WGSL: the
// multi-pass bitonic merge, every pass inside ONE workgroup of CNT
// invocations (61_bitonic_merge_multipass.cu's <<<1, n>>>), the passes
// separated by workgroupBarrier() where the CUDA kernel has __syncthreads().
//
// One change of memory, for WGSL's sake: workgroupBarrier() orders accesses
// to WORKGROUP memory only (unlike __syncthreads(), which also orders a
// block's global-memory accesses), so the workgroup copies the array into
// var<workgroup> a[], runs the passes there, and writes it back at the end.
// Because the workgroup has exactly CNT invocations, the kernel's
// `if (tid >= cnt) return;` can never fire, and WGSL would not allow it
// before a barrier anyway (barriers must be reached by every invocation):
// it is left out.
//
// Companion additions, as in the CUDA file: after each pass every invocation
// copies its element into row `pass` of g_trace (between two barriers), and
// every invocation that compares a pair adds 1 to g_active[pass], so the
// counts the page prints are measured on the GPU. g_did records what each
// invocation did in each pass (0 idle, 1 compared and kept, 2 swapped).
//
// TRAP_FIRST_GROUP_ONLY = true is ch12/traps/61_trap_first_group_only.cu:
// the active test becomes `tid < dist` (the line marked THE TRAP).

override CNT: u32 = 8u;                        // invocations = elements (blockDim.x = cnt)
override TRAP_FIRST_GROUP_ONLY: bool = false;  // the COMMON TRAP of Section 12.2

struct Args {
    ascending: u32,
}

@group(0) @binding(0) var<storage, read_write> g_a: array<i32>;
@group(0) @binding(1) var<uniform> args: Args;
@group(0) @binding(2) var<storage, read_write> g_trace: array<i32>;           // companion
@group(0) @binding(3) var<storage, read_write> g_active: array<atomic<u32>>;  // companion
@group(0) @binding(4) var<storage, read_write> g_did: array<u32>;             // companion

var<workgroup> a: array<i32, CNT>;

@compute @workgroup_size(CNT)
fn bitonic_merge_kernel(@builtin(local_invocation_index) tid: u32) {
    a[tid] = g_a[tid];
    workgroupBarrier();

    var pass_index = 0u;  // companion
    for (var dist = CNT / 2u; dist >= 1u; dist /= 2u) {
        var is_active = (tid % (2u * dist)) < dist;
        if (TRAP_FIRST_GROUP_ONLY) {
            is_active = tid < dist;  // <-- THE TRAP: the book's test is (tid % (2 * dist)) < dist
        }
        var did = 0u;  // companion
        if (is_active) {
            atomicAdd(&g_active[pass_index], 1u);  // companion: one more active pair
            let i = tid;
            let j = tid + dist;
            let lo = a[i];
            let hi = a[j];
            let should_swap = select((lo < hi), (lo > hi), args.ascending != 0u);
            if (should_swap) {
                a[i] = hi;
                a[j] = lo;
            }
            did = select(1u, 2u, should_swap);
        }
        workgroupBarrier();
        g_trace[pass_index * CNT + tid] = a[tid];  // companion: snapshot of this pass
        g_did[pass_index * CNT + tid] = did;       // companion
        workgroupBarrier();                        // companion: copy done before the next pass
        pass_index++;                              // companion
    }

    g_a[tid] = a[tid];
}
