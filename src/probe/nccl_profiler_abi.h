// The NCCL profiler plugin ABI, every version NCCL has released with a profiler API:
// v1 (NCCL 2.23), v2 (2.24, 2.25), v3 (2.26), v4 (2.27), v5 (2.28). One header per
// version, each declared from that release's ext-profiler headers and pinned by
// static_asserts; tests/probe/abi_check.sh compares all five field by field with the
// debug info of NCCL 2.28.9's libnccl.so.2, which declares them all. Builds without NCCL
// or CUDA.
#pragma once
#include "probe/abi_common.h"
#include "probe/abi_v1.h"
#include "probe/abi_v2.h"
#include "probe/abi_v3.h"
#include "probe/abi_v4.h"
#include "probe/abi_v5.h"
