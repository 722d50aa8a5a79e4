/* HAMi's keys that another scheme reads too: NVIDIA's whole-GPU scheme
 * shares nvidia.com/gpu with HAMi and steps aside for HAMi's nodes and
 * pods.  The scheme itself is `scheme_hami` in schemes[]. */
#ifndef SCHEME_HAMI_H
#define SCHEME_HAMI_H

#include "scheme.h"

extern const struct scheme scheme_hami;

/* The device plugin's register of the node's GPUs. */
#define ANN_HAMI_REGISTER "hami.io/node-nvidia-register"
/* The pod's devices, their pending copy, the node chosen and the bind phase. */
#define ANN_HAMI_ALLOCATED "hami.io/vgpu-devices-allocated"
#define ANN_HAMI_TO_ALLOCATE "hami.io/vgpu-devices-to-allocate"
#define ANN_HAMI_NODE "hami.io/vgpu-node"
#define ANN_HAMI_BIND_PHASE "hami.io/bind-phase"
/* Memory (MiB or percent of the card) and compute per vGPU. */
#define RES_HAMI_MEM "nvidia.com/gpumem"
#define RES_HAMI_MEM_PCT "nvidia.com/gpumem-percentage"
#define RES_HAMI_CORES "nvidia.com/gpucores"
/* The scheduler HAMi's pods name. */
#define HAMI_SCHEDULER "hami-scheduler"

#endif
