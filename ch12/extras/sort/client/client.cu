// ch12/extras/sort/client/client.cu -- a client of the sort library as a
// package: it includes bitonic/bitonic_sort.cuh and nothing of the
// companion's own, and links the CMake target ch12_bitonic_sort. The test
// sort_library_client builds it (it is not run): the library's public face
// must be enough to write this.
#include <cstdio>

#include "bitonic/bitonic_sort.cuh"

// What a caller writes: a batch of (key, value) pairs of floats, sorted
// descending on `stream`, every failure returned as the library's Status.
static bitonic::Status sort_batch(float* d_keys, uint32_t* d_values, size_t count, size_t len, cudaStream_t stream,
                                  bitonic::Sorter& sorter) {
    bitonic::Request r;  // fast design, uint32 keys, ascending: changed below
    r.key_type = bitonic::KeyType::f32;
    r.order = bitonic::Order::descending;
    r.with_values = true;
    r.count = count;
    r.len = len;
    const bitonic::Status checked = bitonic::check(r);  // needs no GPU
    if (!checked.ok()) return checked;
    return sorter.sort(r, d_keys, d_values, stream);
}

int main(int argc, char**) {
    bitonic::Limits limits;
    bitonic::Status s = bitonic::device_limits(&limits, bitonic::profile_by_name("t4"));
    if (s.ok()) {
        bitonic::Sorter sorter;
        s = sort_batch(nullptr, nullptr, (size_t)argc * 1000, 1023, 0, sorter);  // null pointers: a status, no launch
    }
    std::printf("%s (%s, %s)\n", bitonic::message(s).c_str(), bitonic::errc_name(s.code),
                bitonic::key_type_name(bitonic::KeyType::f32));
    return s.code == bitonic::Errc::null_pointer ? 0 : 1;
}
