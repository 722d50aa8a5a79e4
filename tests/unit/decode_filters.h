/* The filters the decoder tests decode with: a scheme's (cgpu), every
 * key, none, and the scheduling fields alone. */
#ifndef DECODE_FILTERS_H
#define DECODE_FILTERS_H

#include "decode.h"

static const char *const cgpu_annotations[] = {"ALIYUN_COM_GPU_MEM_*", NULL};
static const char *const cgpu_resources[] = {"aliyun.com/gpu-mem", "aliyun.com/gpu-count", NULL};
static const char *const cgpu_labels[] = {"ack.node.gpu.*", "aliyun.accelerator/*", NULL};
static const struct decode_filter cgpu_filter = {
	.label_keys = cgpu_labels,
	.annotation_keys = cgpu_annotations,
	.resource_names = cgpu_resources,
};
static const struct decode_filter all_filter = {
	.all_labels = true,
	.all_annotations = true,
	.all_resources = true,
};
static const struct decode_filter none_filter = {0};
static const struct decode_filter sched_filter = {.scheduling = true};

#endif
