/* Label keys and resource names that more than one scheme reads: those of
 * NVIDIA's device plugin and GPU feature discovery, and Alibaba Cloud's
 * accelerator labels.  Each is spelled here once; a key only one scheme
 * reads is spelled in that scheme's file.
 */
#ifndef SCHEME_KEYS_H
#define SCHEME_KEYS_H

/* Whole GPUs (or time-slicing replicas) from NVIDIA's device plugin; HAMi
 * and CCE nodes publish it too. */
#define RES_NVIDIA_GPU "nvidia.com/gpu"
/* GPU feature discovery: the node's GPU count, card model and card memory. */
#define LABEL_NVIDIA_GPU_COUNT "nvidia.com/gpu.count"
#define LABEL_NVIDIA_GPU_PRODUCT "nvidia.com/gpu.product"
#define LABEL_NVIDIA_GPU_MEMORY "nvidia.com/gpu.memory"
/* Alibaba Cloud's GPU nodes: card model, card memory and GPU count. */
#define LABEL_ALIYUN_ACCELERATOR "aliyun.accelerator/*"
#define LABEL_ALIYUN_GPU_NAME "aliyun.accelerator/nvidia_name"
#define LABEL_ALIYUN_GPU_MEM "aliyun.accelerator/nvidia_mem"
#define LABEL_ALIYUN_GPU_COUNT "aliyun.accelerator/nvidia_count"

#endif
