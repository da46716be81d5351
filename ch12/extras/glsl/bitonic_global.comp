#version 450
// ch12/extras/glsl/bitonic_global.comp -- one step of the network whose
// distance j spans workgroups (j >= 1024): no workgroup barrier can order it,
// so each such step is a dispatch of its own over the global buffer, and the
// host puts a pipeline barrier between dispatches. One invocation per pair:
// the same partner, direction and thread mapping as bitonic_local.comp.

layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;

layout(std430, binding = 0) buffer DataBuffer {
    float elements[];
};

layout(push_constant) uniform Step {
    uint k;  // the stage: the size of the bitonic runs being merged
    uint j;  // the distance
} step;

uint order_key(float f) {
    uint u = floatBitsToUint(f);
    return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}

void main() {
    uint t = gl_GlobalInvocationID.x;           // pair number: n/2 of them
    uint i = 2u * t - (t & (step.j - 1u));      // the lower index, bit j clear
    uint partner = i ^ step.j;
    bool ascending = ((i & step.k) == 0u);

    float val_i = elements[i];
    float val_partner = elements[partner];
    if ((order_key(val_i) > order_key(val_partner)) == ascending) {
        elements[i] = val_partner;
        elements[partner] = val_i;
    }
}
