#version 450
// ch12/extras/glsl/bitonic_local.comp -- the workgroup bitonic sort: 1024
// floats sorted in shared memory by 512 invocations, after the design of a
// tutorial article on bitonic merge sort in GLSL compute shaders (partner
// i ^ j, direction (i & k) == 0, the thread mapping 2t - (t & (j-1)), and
// barrier() plus memoryBarrierShared() after every step).
//
// Two differences from the article's single-workgroup shader, both for
// arrays longer than one workgroup's 1024 floats:
//  * workgroup w sorts elements [1024 w, 1024 w + 1024), and the direction of
//    a pair comes from its GLOBAL index, so neighbouring tiles come out in
//    opposite directions, ready to be merged (as in Section 12.3's kernel);
//  * a push constant picks what to do: k_outer = 0 runs every stage
//    k = 2 .. 1024 (the article's loop); k_outer = K > 1024 runs only the
//    tail of stage K, the distances 512 .. 1, after bitonic_global.comp has
//    done the distances that span workgroups.
// And one for floats: pairs are compared by IEEE 754 totalOrder (the float's
// bits mapped to a uint whose order is that order), so that NaN, -0.0 and
// +0.0 all have a fixed place: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.

#define NUM_ELEMENTS 1024
#define WORKGROUP_SIZE (NUM_ELEMENTS / 2)

layout(local_size_x = WORKGROUP_SIZE, local_size_y = 1, local_size_z = 1) in;

// Input/Output storage buffer
layout(std430, binding = 0) buffer DataBuffer {
    float elements[];
};

layout(push_constant) uniform Stage {
    uint k_outer;  // 0: sort each tile from scratch; K: the tail of stage K
} stage;

// Workgroup shared memory for fast access
shared float shared_data[NUM_ELEMENTS];

// totalOrder: negative floats with every bit flipped, positive ones with the sign bit set.
uint order_key(float f) {
    uint u = floatBitsToUint(f);
    return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}

void main() {
    uint local_id = gl_LocalInvocationIndex;
    uint base = gl_WorkGroupID.x * NUM_ELEMENTS;

    // Step 1: Load global data into workgroup shared memory
    uint idx1 = local_id;
    uint idx2 = local_id + WORKGROUP_SIZE;

    shared_data[idx1] = elements[base + idx1];
    shared_data[idx2] = elements[base + idx2];

    // Ensure all loads are complete before sorting begins
    barrier();
    memoryBarrierShared();

    // Step 2: Perform the bitonic sort passes (all stages, or one stage's tail)
    uint k_first = (stage.k_outer == 0u) ? 2u : stage.k_outer;
    uint k_last = (stage.k_outer == 0u) ? uint(NUM_ELEMENTS) : stage.k_outer;
    for (uint k = k_first; k <= k_last; k <<= 1) {
        for (uint j = min(k >> 1, uint(WORKGROUP_SIZE)); j > 0u; j >>= 1) {
            // Each thread processes one pair of indices
            uint i = 2u * local_id - (local_id & (j - 1u));
            uint partner = i ^ j;

            if (partner > i) {
                // Determine direction from the global index: true = ascending
                bool ascending = (((base + i) & k) == 0u);

                float val_i = shared_data[i];
                float val_partner = shared_data[partner];

                // Swap values if they violate the expected order
                if ((order_key(val_i) > order_key(val_partner)) == ascending) {
                    shared_data[i] = val_partner;
                    shared_data[partner] = val_i;
                }
            }

            // Synchronize threads before the next comparison step
            barrier();
            memoryBarrierShared();
        }
    }

    // Step 3: Write sorted results back to global memory
    elements[base + idx1] = shared_data[idx1];
    elements[base + idx2] = shared_data[idx2];
}
