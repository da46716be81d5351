// ch12/extras/multi_gpu/communicator.cu -- the machine the multi-GPU sort
// runs on: the first P visible GPUs, each with a compute stream and a
// higher-priority communication stream (so NCCL's kernel gets SMs while a
// compare-split runs), the events of its ring of receive slots, its own sort
// library Sorter, and -- with more than one GPU -- an NCCL communicator, all
// made by ncclCommInitAll here and used by the GPUs' threads. NCCL connects
// two GPUs at their first send/recv: setup_machine() does that for every
// pair the schedule uses, outside any timed region. NCCL's errors become the
// companion's Status (Errc::nccl) through the status_of() overload of
// multi_gpu.h, so that CH12_TRY takes an NCCL call like a CUDA one.
#include <string>

#include "multi_gpu.h"

namespace multi_gpu {

#if CH12_HAVE_NCCL
// One communicator per GPU, and every pair of partners connected.
static Status connect(Machine& m, int P) {
    std::vector<ncclComm_t> comms(P);
    std::vector<int> devices(P);
    for (int i = 0; i < P; i++) devices[i] = i;
    CH12_TRY(ncclCommInitAll(comms.data(), P, devices.data()));
    for (int i = 0; i < P; i++) m.gpus[i]->nccl = comms[i];
    CH12_TRY(ncclGetVersion(&m.nccl_version));
    m.has_nccl = true;
    return on_each_gpu(m, P, [&](Gpu& g, size_t i) -> Status {
        ch12::DeviceBuffer<uint32_t> word;
        CH12_TRY(word.allocate(2));
        for (int bit = 0; (1 << bit) < P; bit++) {
            const int peer = (int)i ^ (1 << bit);
            CH12_TRY(ncclGroupStart());
            CH12_TRY(ncclSend(word.get(), 1, ncclUint32, peer, g.nccl, g.comm));
            CH12_TRY(ncclRecv(word.get() + 1, 1, ncclUint32, peer, g.nccl, g.comm));
            CH12_TRY(ncclGroupEnd());
        }
        CH12_TRY(cudaStreamSynchronize(g.comm));
        return {};
    });
}
#endif

Status setup_machine(Machine& m, int P) {
    for (int i = 0; i < P; i++) {
        auto g = std::make_unique<Gpu>();
        g->device = i;
        CH12_TRY(cudaSetDevice(i));
        int least = 0, greatest = 0;  // the communication stream goes first
        CH12_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        CH12_TRY(cudaStreamCreateWithPriority(&g->compute, cudaStreamNonBlocking, least));
        CH12_TRY(cudaStreamCreateWithPriority(&g->comm, cudaStreamNonBlocking, greatest));
        for (int s = 0; s < kSlots; s++) {
            CH12_TRY(cudaEventCreateWithFlags(&g->arrived[s], cudaEventDisableTiming));
            CH12_TRY(cudaEventCreateWithFlags(&g->consumed[s], cudaEventDisableTiming));
        }
        g->sorter = std::make_unique<bitonic::Sorter>();
        m.gpus.push_back(std::move(g));
    }
#if CH12_HAVE_NCCL
    if (P > 1) CH12_TRY(connect(m, P));
#endif
    return {};
}

std::string nccl_text(const Machine& m) {
    const int v = m.nccl_version;  // 2.9 on: major * 10000 + minor * 100 + patch
    if (!m.has_nccl) return "not used";
    return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

Status teardown_machine(Machine& m) {
    for (auto& g : m.gpus) {
        CH12_TRY(cudaSetDevice(g->device));
#if CH12_HAVE_NCCL
        if (g->nccl) CH12_TRY(ncclCommDestroy(g->nccl));
        g->nccl = nullptr;
#endif
        g->sorter.reset();
        for (ch12::DeviceBuffer<uint32_t>* b : {&g->keys, &g->values, &g->slot_keys, &g->slot_values}) b->release();
        for (int s = 0; s < kSlots; s++) {
            CH12_TRY(cudaEventDestroy(g->arrived[s]));
            CH12_TRY(cudaEventDestroy(g->consumed[s]));
        }
        CH12_TRY(cudaStreamDestroy(g->compute));
        CH12_TRY(cudaStreamDestroy(g->comm));
    }
    m.gpus.clear();
    return {};
}

}  // namespace multi_gpu
