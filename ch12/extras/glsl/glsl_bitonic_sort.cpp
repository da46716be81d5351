// Chapter 12 extra -- the workgroup bitonic sort as a GLSL compute shader,
// run through Vulkan: on a GPU's driver, or on the CPU through Mesa's
// lavapipe, with no GPU at all.
//
//   glsl_bitonic_sort                       the traced run (its golden): 1024 floats in one
//                                           dispatch, then the dispatches and barriers for a few n
//   glsl_bitonic_sort --n N [--input KIND]  sort N floats, check them against std::sort
//                                           (the input kinds: ch12/extras/support/input_kinds.h)
//   glsl_bitonic_sort --bench LIST          time the sort (timestamp queries), median of --runs
//
// The shaders (bitonic_local.comp, bitonic_global.comp) are compiled to
// SPIR-V by glslc at build time and embedded here; running needs only the
// Vulkan loader (libvulkan.so.1) and a driver, both loaded at run time: with
// no loader or no device the program says so on stderr and exits 77, like the
// CUDA programs without a GPU. Every Vulkan step returns the companion's
// Status (ch12/status.h); main ends the program on it.
//
// Sorting n floats: n is padded to a power of two P >= 1024 with the largest
// float of the order (+NaN with every payload bit set, 0x7FFFFFFF), which
// sorts to the end and is dropped. Then, as the article describes for arrays
// longer than one workgroup:
//   1 dispatch of bitonic_local (P/1024 workgroups): stages k = 2 .. 1024
//   for each stage k = 2048 .. P:
//     for j = k/2 .. 1024: 1 dispatch of bitonic_global (one step over the buffer)
//     1 dispatch of bitonic_local with k_outer = k: the tail j = 512 .. 1
// with a pipeline barrier (compute write -> compute read/write) between
// consecutive dispatches. Order: IEEE 754 totalOrder (see the shaders).

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bitonic/key_types.h"
#include "cli.h"
#include "sort_programs.h"  // the input kinds, ch12::exit_status()

using ch12::Errc;
using ch12::Status;

static const uint32_t kLocalSpv[] = {
#include "bitonic_local.spv.inc"
};
static const uint32_t kGlobalSpv[] = {
#include "bitonic_global.spv.inc"
};

// No Vulkan here (no loader, no driver, no device that fits): exit 77.
static Status skip(const std::string& reason) { return ch12::failure(Errc::cannot_run_here, "skipped: " + reason); }

namespace ch12 {
// A Vulkan call's result as a Status, for CH12_TRY.
inline Status status_of(VkResult r, const char* call, const char*, int) {
    if (r == VK_SUCCESS) return {};
    return failure(Errc::vulkan, std::string("Vulkan error: ") + call + " failed with VkResult " + std::to_string((int)r),
                   (int)r);
}
}  // namespace ch12

// ---- the Vulkan functions this program uses, loaded at run time ---------------
#define VK_INSTANCE_FUNCTIONS(X) \
    X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties) \
    X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetPhysicalDeviceMemoryProperties) X(vkCreateDevice) \
    X(vkGetDeviceProcAddr)
#define VK_DEVICE_FUNCTIONS(X) \
    X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkCreateBuffer) X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) \
    X(vkAllocateMemory) X(vkFreeMemory) X(vkBindBufferMemory) X(vkMapMemory) X(vkUnmapMemory) \
    X(vkCreateShaderModule) X(vkDestroyShaderModule) X(vkCreateDescriptorSetLayout) X(vkDestroyDescriptorSetLayout) \
    X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout) X(vkCreateComputePipelines) X(vkDestroyPipeline) \
    X(vkCreateDescriptorPool) X(vkDestroyDescriptorPool) X(vkAllocateDescriptorSets) X(vkUpdateDescriptorSets) \
    X(vkFreeDescriptorSets) X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkAllocateCommandBuffers) \
    X(vkFreeCommandBuffers) X(vkBeginCommandBuffer) \
    X(vkEndCommandBuffer) X(vkResetCommandBuffer) X(vkCmdBindPipeline) X(vkCmdBindDescriptorSets) \
    X(vkCmdPushConstants) X(vkCmdDispatch) X(vkCmdPipelineBarrier) X(vkCmdCopyBuffer) X(vkCmdFillBuffer) \
    X(vkCmdResetQueryPool) X(vkCmdWriteTimestamp) X(vkCreateQueryPool) X(vkDestroyQueryPool) \
    X(vkGetQueryPoolResults) X(vkQueueSubmit) X(vkQueueWaitIdle)

#define DECLARE(f) static PFN_##f f;
static PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
static PFN_vkCreateInstance vkCreateInstance;
VK_INSTANCE_FUNCTIONS(DECLARE)
VK_DEVICE_FUNCTIONS(DECLARE)

// ---- one device, one buffer, two pipelines ---------------------------------------
struct Gpu {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties props{};
    uint32_t queue_family = 0;
    bool timestamps = false;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    VkPhysicalDeviceMemoryProperties memory{};
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline local = VK_NULL_HANDLE, global = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkCommandPool commands = VK_NULL_HANDLE;
    VkQueryPool queries = VK_NULL_HANDLE;
};

struct Buffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
};

static Status load_loader() {
    const char* path = std::getenv("CH12_VULKAN_LOADER");  // for the tests: a loader that is not there
    if (!path || !*path) path = "libvulkan.so.1";
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) return skip(std::string("no Vulkan loader (") + dlerror() + "); install it (Debian/Ubuntu: libvulkan1)");
    vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
    if (!vkGetInstanceProcAddr) return skip(std::string(path) + " has no vkGetInstanceProcAddr");
    vkCreateInstance = reinterpret_cast<PFN_vkCreateInstance>(vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkCreateInstance"));
    return {};
}

static uint32_t memory_type(const Gpu& g, uint32_t bits, VkMemoryPropertyFlags want) {
    for (uint32_t i = 0; i < g.memory.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (g.memory.memoryTypes[i].propertyFlags & want) == want) return i;
    return UINT32_MAX;
}

static Status make_buffer(const Gpu& g, VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags want,
                          VkMemoryPropertyFlags fallback, Buffer* out) {
    Buffer& b = *out;
    b.size = size;
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = size;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    CH12_TRY(vkCreateBuffer(g.device, &info, nullptr, &b.buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(g.device, b.buffer, &req);
    uint32_t type = memory_type(g, req.memoryTypeBits, want);
    if (type == UINT32_MAX) type = memory_type(g, req.memoryTypeBits, fallback);
    if (type == UINT32_MAX) CH12_TRY(ch12::status_of(VK_ERROR_OUT_OF_DEVICE_MEMORY, "finding a memory type", __FILE__, __LINE__));
    VkMemoryAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = type;
    CH12_TRY(vkAllocateMemory(g.device, &alloc, nullptr, &b.memory));
    CH12_TRY(vkBindBufferMemory(g.device, b.buffer, b.memory, 0));
    return {};
}

static void free_buffer(const Gpu& g, Buffer& b) {
    if (b.buffer) vkDestroyBuffer(g.device, b.buffer, nullptr);
    if (b.memory) vkFreeMemory(g.device, b.memory, nullptr);
    b = Buffer{};
}

static Status make_pipeline(const Gpu& g, const uint32_t* spv, size_t bytes, VkPipeline* pipeline) {
    VkShaderModuleCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    info.codeSize = bytes;
    info.pCode = spv;
    VkShaderModule module;
    CH12_TRY(vkCreateShaderModule(g.device, &info, nullptr, &module));
    VkComputePipelineCreateInfo pinfo{};
    pinfo.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    pinfo.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pinfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pinfo.stage.module = module;
    pinfo.stage.pName = "main";
    pinfo.layout = g.layout;
    const VkResult r = vkCreateComputePipelines(g.device, VK_NULL_HANDLE, 1, &pinfo, nullptr, pipeline);
    vkDestroyShaderModule(g.device, module, nullptr);
    CH12_TRY(ch12::status_of(r, "vkCreateComputePipelines(g.device, VK_NULL_HANDLE, 1, &pinfo, nullptr, pipeline)",
                             __FILE__, __LINE__));
    return {};
}

// The instance, and the instance-level functions. No driver: exit 77.
static Status create_instance(Gpu& g) {
    CH12_TRY(load_loader());
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "glsl_bitonic_sort";
    app.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.pApplicationInfo = &app;
    VkResult r = vkCreateInstance(&info, nullptr, &g.instance);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_INITIALIZATION_FAILED)
        return skip("no Vulkan driver found (vkCreateInstance: VkResult " + std::to_string((int)r) +
                    "); install one (Debian/Ubuntu: mesa-vulkan-drivers runs Vulkan on the CPU)");
    CH12_TRY(r);
#define LOAD_INSTANCE(f) f = reinterpret_cast<PFN_##f>(vkGetInstanceProcAddr(g.instance, #f));
    VK_INSTANCE_FUNCTIONS(LOAD_INSTANCE)
    return {};
}

// The device (discrete GPU first, then integrated, virtual, CPU) and its
// compute queue family. None that can run the shader: exit 77.
static Status pick_device(Gpu& g) {
    uint32_t count = 0;
    CH12_TRY(vkEnumeratePhysicalDevices(g.instance, &count, nullptr));
    if (count == 0) return skip("no Vulkan device found");
    std::vector<VkPhysicalDevice> devices(count);
    CH12_TRY(vkEnumeratePhysicalDevices(g.instance, &count, devices.data()));
    const VkPhysicalDeviceType preference[] = {VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU,
                                               VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU, VK_PHYSICAL_DEVICE_TYPE_CPU,
                                               VK_PHYSICAL_DEVICE_TYPE_OTHER};
    std::string refused;
    for (VkPhysicalDeviceType want : preference) {
        for (VkPhysicalDevice d : devices) {
            VkPhysicalDeviceProperties p;
            vkGetPhysicalDeviceProperties(d, &p);
            if (p.deviceType != want || g.physical) continue;
            if (p.limits.maxComputeWorkGroupInvocations < 512 || p.limits.maxComputeWorkGroupSize[0] < 512 ||
                p.limits.maxComputeSharedMemorySize < 4096) {
                refused += std::string(refused.empty() ? "" : ", ") + p.deviceName + " (too small a workgroup)";
                continue;
            }
            uint32_t families = 0;
            vkGetPhysicalDeviceQueueFamilyProperties(d, &families, nullptr);
            std::vector<VkQueueFamilyProperties> fam(families);
            vkGetPhysicalDeviceQueueFamilyProperties(d, &families, fam.data());
            for (uint32_t f = 0; f < families && !g.physical; f++) {
                if (fam[f].queueFlags & VK_QUEUE_COMPUTE_BIT) {
                    g.physical = d;
                    g.props = p;
                    g.queue_family = f;
                    g.timestamps = fam[f].timestampValidBits > 0 && p.limits.timestampPeriod > 0;
                }
            }
        }
    }
    if (!g.physical)
        return skip("no Vulkan device can run a 512-invocation compute shader" +
                    (refused.empty() ? std::string() : ": " + refused));
    vkGetPhysicalDeviceMemoryProperties(g.physical, &g.memory);
    return {};
}

// The logical device, its queue, and the device-level functions.
static Status create_device(Gpu& g) {
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo qinfo{};
    qinfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qinfo.queueFamilyIndex = g.queue_family;
    qinfo.queueCount = 1;
    qinfo.pQueuePriorities = &priority;
    VkDeviceCreateInfo dinfo{};
    dinfo.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    dinfo.queueCreateInfoCount = 1;
    dinfo.pQueueCreateInfos = &qinfo;
    CH12_TRY(vkCreateDevice(g.physical, &dinfo, nullptr, &g.device));
#define LOAD_DEVICE(f) f = reinterpret_cast<PFN_##f>(vkGetDeviceProcAddr(g.device, #f));
    VK_DEVICE_FUNCTIONS(LOAD_DEVICE)
    vkGetDeviceQueue(g.device, g.queue_family, 0, &g.queue);
    return {};
}

// One storage buffer and two push constants; the two pipelines.
static Status create_pipelines(Gpu& g) {
    VkDescriptorSetLayoutBinding binding{};
    binding.binding = 0;
    binding.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    binding.descriptorCount = 1;
    binding.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    VkDescriptorSetLayoutCreateInfo linfo{};
    linfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    linfo.bindingCount = 1;
    linfo.pBindings = &binding;
    CH12_TRY(vkCreateDescriptorSetLayout(g.device, &linfo, nullptr, &g.set_layout));
    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, 2 * sizeof(uint32_t)};
    VkPipelineLayoutCreateInfo plinfo{};
    plinfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    plinfo.setLayoutCount = 1;
    plinfo.pSetLayouts = &g.set_layout;
    plinfo.pushConstantRangeCount = 1;
    plinfo.pPushConstantRanges = &push;
    CH12_TRY(vkCreatePipelineLayout(g.device, &plinfo, nullptr, &g.layout));
    CH12_TRY(make_pipeline(g, kLocalSpv, sizeof kLocalSpv, &g.local));
    CH12_TRY(make_pipeline(g, kGlobalSpv, sizeof kGlobalSpv, &g.global));
    return {};
}

// The descriptor pool, the command pool, and (when the queue has them) the timestamp queries.
static Status create_pools(Gpu& g) {
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1};
    VkDescriptorPoolCreateInfo pinfo{};
    pinfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    pinfo.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    pinfo.maxSets = 1;
    pinfo.poolSizeCount = 1;
    pinfo.pPoolSizes = &size;
    CH12_TRY(vkCreateDescriptorPool(g.device, &pinfo, nullptr, &g.pool));
    VkCommandPoolCreateInfo cinfo{};
    cinfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    cinfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    cinfo.queueFamilyIndex = g.queue_family;
    CH12_TRY(vkCreateCommandPool(g.device, &cinfo, nullptr, &g.commands));
    if (g.timestamps) {
        VkQueryPoolCreateInfo qpinfo{};
        qpinfo.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
        qpinfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qpinfo.queryCount = 2;
        CH12_TRY(vkCreateQueryPool(g.device, &qpinfo, nullptr, &g.queries));
    }
    return {};
}

// Instance, device, queue, pipelines, pools. Errc::cannot_run_here when
// there is no usable device (exit 77).
static Status open_gpu(Gpu* g) {
    CH12_TRY(create_instance(*g));
    CH12_TRY(pick_device(*g));
    CH12_TRY(create_device(*g));
    CH12_TRY(create_pipelines(*g));
    CH12_TRY(create_pools(*g));
    return {};
}

static void close_gpu(Gpu& g) {
    if (g.queries) vkDestroyQueryPool(g.device, g.queries, nullptr);
    vkDestroyCommandPool(g.device, g.commands, nullptr);
    vkDestroyDescriptorPool(g.device, g.pool, nullptr);
    vkDestroyPipeline(g.device, g.global, nullptr);
    vkDestroyPipeline(g.device, g.local, nullptr);
    vkDestroyPipelineLayout(g.device, g.layout, nullptr);
    vkDestroyDescriptorSetLayout(g.device, g.set_layout, nullptr);
    vkDestroyDevice(g.device, nullptr);
    vkDestroyInstance(g.instance, nullptr);
}

// A memory barrier: what `from` wrote is visible to what `to` does next.
static void barrier(VkCommandBuffer cb, VkPipelineStageFlags from_stage, VkAccessFlags from,
                    VkPipelineStageFlags to_stage, VkAccessFlags to) {
    VkMemoryBarrier m{};
    m.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    m.srcAccessMask = from;
    m.dstAccessMask = to;
    vkCmdPipelineBarrier(cb, from_stage, to_stage, 0, 1, &m, 0, nullptr, 0, nullptr);
}

struct SortResult {
    std::vector<float> values;
    uint32_t padded = 0, dispatches = 0, barriers = 0;
    double gpu_ms = -1;  // the dispatches alone, by timestamps (when the queue has them)
};

// The commands of one sort, recorded into cb: the upload, the padding with
// the largest float of the order (0x7FFFFFFF), every dispatch with a barrier
// between consecutive ones (counted in res), the timestamps, the read-back.
static void record_sort(const Gpu& g, VkCommandBuffer cb, VkDescriptorSet set, const Buffer& data,
                        const Buffer& staging, uint32_t n, SortResult* res) {
    const uint32_t padded = res->padded;
    VkBufferCopy copy{0, 0, (VkDeviceSize)n * sizeof(float)};
    if (n > 0) vkCmdCopyBuffer(cb, staging.buffer, data.buffer, 1, &copy);
    if (padded > n) vkCmdFillBuffer(cb, data.buffer, (VkDeviceSize)n * sizeof(float), (VkDeviceSize)(padded - n) * sizeof(float), 0x7FFFFFFFu);
    barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    if (g.timestamps) {
        vkCmdResetQueryPool(cb, g.queries, 0, 2);
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, g.queries, 0);
    }
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, g.layout, 0, 1, &set, 0, nullptr);
    res->dispatches = res->barriers = 0;
    auto dispatch = [&](VkPipeline p, uint32_t k, uint32_t j, uint32_t groups) {
        if (res->dispatches > 0) {  // the previous dispatch's writes, before this one reads
            barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
            res->barriers++;
        }
        const uint32_t push[2] = {k, j};
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p);
        vkCmdPushConstants(cb, g.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
        vkCmdDispatch(cb, groups, 1, 1);
        res->dispatches++;
    };
    dispatch(g.local, 0, 0, padded / 1024);  // every stage up to 1024, in each tile
    for (uint32_t k = 2048; k <= padded && k != 0; k *= 2) {
        for (uint32_t j = k / 2; j >= 1024; j /= 2) dispatch(g.global, k, j, padded / 2 / 256);
        dispatch(g.local, k, 0, padded / 1024);  // the tail of stage k
    }
    if (g.timestamps) vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, g.queries, 1);
    barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_READ_BIT);
    if (n > 0) vkCmdCopyBuffer(cb, data.buffer, staging.buffer, 1, &copy);
    barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
            VK_ACCESS_HOST_READ_BIT);
}

// One sort: recorded, submitted, waited for; its time appended to `times`
// (when the queue has timestamps).
static Status run_sort(const Gpu& g, VkCommandBuffer cb, VkDescriptorSet set, const Buffer& data,
                       const Buffer& staging, uint32_t n, SortResult* res, std::vector<double>* times) {
    CH12_TRY(vkResetCommandBuffer(cb, 0));
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CH12_TRY(vkBeginCommandBuffer(cb, &begin));
    record_sort(g, cb, set, data, staging, n, res);
    CH12_TRY(vkEndCommandBuffer(cb));
    VkSubmitInfo submit{};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cb;
    CH12_TRY(vkQueueSubmit(g.queue, 1, &submit, VK_NULL_HANDLE));
    CH12_TRY(vkQueueWaitIdle(g.queue));
    if (g.timestamps) {
        uint64_t stamps[2];
        CH12_TRY(vkGetQueryPoolResults(g.device, g.queries, 0, 2, sizeof stamps, stamps, sizeof(uint64_t),
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        times->push_back((double)(stamps[1] - stamps[0]) * g.props.limits.timestampPeriod * 1e-6);
    }
    return {};
}

// A descriptor set that binds `data`, and a command buffer.
static Status bind(const Gpu& g, const Buffer& data, VkDescriptorSet* set, VkCommandBuffer* cb) {
    VkDescriptorSetAllocateInfo ainfo{};
    ainfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    ainfo.descriptorPool = g.pool;
    ainfo.descriptorSetCount = 1;
    ainfo.pSetLayouts = &g.set_layout;
    CH12_TRY(vkAllocateDescriptorSets(g.device, &ainfo, set));
    VkDescriptorBufferInfo binfo{data.buffer, 0, data.size};
    VkWriteDescriptorSet write{};
    write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    write.dstSet = *set;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    write.pBufferInfo = &binfo;
    vkUpdateDescriptorSets(g.device, 1, &write, 0, nullptr);

    VkCommandBufferAllocateInfo cinfo{};
    cinfo.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cinfo.commandPool = g.commands;
    cinfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cinfo.commandBufferCount = 1;
    CH12_TRY(vkAllocateCommandBuffers(g.device, &cinfo, cb));
    return {};
}

// Sorts `in` on the device, repeating the sort `repeats` times from the same
// input (for timing); *res: the last result and the median time.
static Status sort_on_gpu(Gpu& g, const std::vector<float>& in, int repeats, SortResult* res) {
    const uint32_t n = (uint32_t)in.size();
    uint32_t padded = 1024;
    while (padded < n) padded *= 2;
    res->padded = padded;
    const VkDeviceSize bytes = (VkDeviceSize)padded * sizeof(float);
    Buffer data, staging;
    CH12_TRY(make_buffer(g, bytes,
                         VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &data));
    CH12_TRY(make_buffer(g, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &staging));
    void* mapped = nullptr;
    CH12_TRY(vkMapMemory(g.device, staging.memory, 0, bytes, 0, &mapped));
    std::memcpy(mapped, in.data(), (size_t)n * sizeof(float));
    VkDescriptorSet set;
    VkCommandBuffer cb;
    CH12_TRY(bind(g, data, &set, &cb));

    std::vector<double> times;
    for (int rep = 0; rep < repeats; rep++) CH12_TRY(run_sort(g, cb, set, data, staging, n, res, &times));
    res->values.assign((const float*)mapped, (const float*)mapped + n);
    if (times.size() > 1) times.erase(times.begin());  // the first run is the warm-up
    if (!times.empty()) {
        std::sort(times.begin(), times.end());
        res->gpu_ms = times[times.size() / 2];
    }
    vkFreeCommandBuffers(g.device, g.commands, 1, &cb);
    CH12_TRY(vkFreeDescriptorSets(g.device, g.pool, 1, &set));
    vkUnmapMemory(g.device, staging.memory);
    free_buffer(g, staging);
    free_buffer(g, data);
    return {};
}

// ---- the host side: inputs and the check ----------------------------------------
// A float's bits, and its place in IEEE 754's totalOrder (as the shaders
// compare): the sort library's own map, bitonic/key_types.h.
static uint32_t bits(float f) { return bitonic::float_bits(f); }
static float from_bits(uint32_t u) { return bitonic::bits_float(u); }
static uint32_t order_key(float f) { return bitonic::to_order(bitonic::KeyType::f32, bitonic::float_bits(f)); }

// The floats of each input kind: the one generator's (ch12::input_key in
// ch12/extras/support/input_kinds.h, key type float) -- the same floats the
// sort library's tests sort, and the web page's.
static std::vector<float> make_input(ch12::Input kind, uint32_t n, uint32_t seed) {
    std::vector<float> v(n);
    for (uint32_t i = 0; i < n; i++) v[i] = from_bits(ch12::input_key(kind, ch12::KeyBits::float32, i, n, seed));
    return v;
}
// The traced run's 1024 floats: each special float of that list once (19:
// its last entry repeats 1.0), and the rest from -1000 to 1000 in quarters
// (repeats).
static std::vector<float> traced_input(uint32_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<float> v(n);
    for (uint32_t i = 0; i < n; i++)
        v[i] = i < ch12::kSpecialFloats - 1 ? from_bits(ch12::input_special_float((int)i))
                                            : (float)((int)(rng() % 8001) - 4000) / 4.0f;
    return v;
}

// Bit for bit: the same floats, in std::sort's order by totalOrder.
static bool same_as_std_sort(const std::vector<float>& in, const std::vector<float>& out) {
    std::vector<uint32_t> want(in.size()), got(out.size());
    for (size_t i = 0; i < in.size(); i++) want[i] = order_key(in[i]);
    for (size_t i = 0; i < out.size(); i++) got[i] = order_key(out[i]);
    std::sort(want.begin(), want.end());
    return want == got;
}

static void print_floats(const char* label, const float* v, size_t count) {
    printf("  %s", label);
    for (size_t i = 0; i < count; i++) printf(" %g", v[i]);
    printf("\n  %*s", (int)std::strlen(label), "");
    for (size_t i = 0; i < count; i++) printf(" %08x", bits(v[i]));
    printf("\n");
}

// --n N: one sort, checked.
static Status run_n(Gpu& g, uint64_t n, ch12::Input input, uint32_t seed, bool* ok) {
    std::vector<float> in = make_input(input, (uint32_t)n, seed);
    SortResult r;
    CH12_TRY(sort_on_gpu(g, in, 1, &r));
    *ok = same_as_std_sort(in, r.values);
    printf("device: %s\n", g.props.deviceName);
    printf("sorted %llu floats (%s, seed %u), padded to %u: %u dispatches, %u barriers between them\n",
           (unsigned long long)n, ch12::input_name(input), seed, r.padded, r.dispatches, r.barriers);
    if (r.gpu_ms >= 0) printf("time: %.3f ms for the dispatches (timestamps; one run)\n", r.gpu_ms);
    printf("bit-identical to std::sort by totalOrder: %s\n", *ok ? "yes" : "NO -- MISMATCH");
    return {};
}

// --bench LIST: the median time of each size.
static Status run_bench(Gpu& g, const std::vector<int>& bench, uint32_t seed, int runs, bool* ok) {
    printf("device: %s\n", g.props.deviceName);
    if (!g.timestamps) printf("this queue has no timestamps: no times\n");
    printf("%10s %8s %10s  %s\n", "n", "ms", "Gkeys/s", "check");
    for (int e : bench) {
        std::vector<float> in = make_input(ch12::Input::uniform, 1u << e, seed);
        SortResult r;
        CH12_TRY(sort_on_gpu(g, in, runs + 1, &r));  // a warm-up, then `runs` timed
        const bool same = same_as_std_sort(in, r.values);
        *ok = *ok && same;
        printf("%10u %8.4f %10.3f  %s\n", 1u << e, r.gpu_ms, r.gpu_ms > 0 ? (1u << e) / (r.gpu_ms * 1e-3) / 1e9 : 0.0,
               same ? "ok" : "WRONG");
    }
    return {};
}

// Without options: the traced run (the golden output).
static Status run_traced(Gpu& g, bool* ok) {
    printf("=== Chapter 12 extra: the workgroup bitonic sort as a GLSL compute shader ===\n\n");
    printf("device: %s\n", g.props.deviceName);
    printf("shader: 1024 floats per workgroup of 512 invocations, shared float,\n");
    printf("        barrier() and memoryBarrierShared() after every step\n\n");
    std::vector<float> in = traced_input(1024, 12);
    SortResult r;
    CH12_TRY(sort_on_gpu(g, in, 1, &r));
    const bool same = same_as_std_sort(in, r.values);
    *ok = *ok && same && r.dispatches == 1;
    printf("1024 floats (each special float once: +-0, +-inf, NaNs, denormals, extremes;\n");
    printf("the rest from -1000 to 1000 in quarters, with repeats), %u dispatch%s:\n", r.dispatches,
           r.dispatches == 1 ? "" : "es");
    print_floats("first 8:", r.values.data(), 8);
    print_floats("last 8: ", r.values.data() + 1016, 8);
    printf("  bit-identical to std::sort by totalOrder: %s\n\n", same ? "yes" : "NO -- MISMATCH");
    printf("longer arrays: padded to a power of two with +NaN (0x7fffffff), one\n");
    printf("dispatch of the local shader, then per stage k >= 2048 one global dispatch\n");
    printf("per distance j >= 1024 and one local dispatch for the tail:\n\n");
    printf("%9s %9s %11s %9s  %s\n", "n", "padded", "dispatches", "barriers", "bit-identical to std::sort");
    const ch12::Input kinds[] = {ch12::Input::uniform, ch12::Input::sorted, ch12::Input::reverse, ch12::Input::equal,
                                 ch12::Input::special};
    for (uint32_t m : {1u, 1000u, 1024u, 1025u, 2048u, 5000u, 65536u, 100003u}) {
        std::vector<float> v = make_input(kinds[m % 5], m, m);
        SortResult s;
        CH12_TRY(sort_on_gpu(g, v, 1, &s));
        const bool good = same_as_std_sort(v, s.values);
        *ok = *ok && good;
        printf("%9u %9u %11u %9u  %s\n", m, s.padded, s.dispatches, s.barriers, good ? "yes" : "NO -- MISMATCH");
    }
    printf("\nself-check: the shader sorts like std::sort, bit for bit: %s\n", *ok ? "confirmed" : "MISMATCH");
    return {};
}

int main(int argc, char** argv) {
    ch12::CommandLine cl(argc, argv, "[--n N [--input KIND] [--seed S] | --bench LIST [--runs R]]",
        "  without options: the traced run -- 1024 floats in one dispatch, then the\n"
        "                   dispatches and barriers for a few n (the golden output)\n"
        "  --n N            sort N floats (0 .. 2^26, or 2^K) and check them against std::sort\n"
        "  --input KIND     " + ch12::input_choices() + " (default uniform)\n"
        "  --seed S         seed of the random floats (default 1)\n"
        "  --bench LIST     time the sort of 2^K floats for each K of a comma list (10 .. 26)\n"
        "  --runs R         timed runs per size, median reported (3 .. 1000, default 7)\n"
        "exit status 77: no Vulkan loader or no Vulkan device here\n");
    cl.option("--n").option("--input").option("--seed").option("--bench").option("--runs");
    cl.parse();
    if (cl.has("--n") && cl.has("--bench")) cl.fail("--n and --bench do not go together");
    if ((cl.has("--input") || cl.has("--seed")) && !cl.has("--n")) cl.fail("--input and --seed go with --n");
    if (cl.has("--runs") && !cl.has("--bench")) cl.fail("--runs goes with --bench");
    const uint64_t n = cl.number("--n", 0, uint64_t(1) << 26, 0, true);
    const ch12::Input input = ch12::input_option(cl);
    const uint32_t seed = (uint32_t)cl.number("--seed", 0, 0xFFFFFFFFu, 1);
    const int runs = (int)cl.number("--runs", 3, 1000, 7);
    std::vector<int> bench;
    if (const char* list = cl.value("--bench")) {
        std::string s = list;
        size_t pos = 0;
        for (;;) {
            const size_t comma = s.find(',', pos);
            bench.push_back((int)cl.to_number(s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos).c_str(),
                                              "--bench", 10, 26));
            if (comma == std::string::npos) break;
            pos = comma + 1;
        }
    }

    Gpu g;
    Status s = open_gpu(&g);
    bool ok = true;
    if (s.ok()) {
        if (cl.has("--n")) s = run_n(g, n, input, seed, &ok);
        else if (!bench.empty()) s = run_bench(g, bench, seed, runs, &ok);
        else s = run_traced(g, &ok);
        if (s.ok()) close_gpu(g);
    }
    return ch12::exit_status(s, cl.name(), ok ? 0 : 1);
}
