// header_cxx.cpp - the public headers compile and link as C++ (extern "C").
#include "fricl/fricl.h"
#include "fricl/fricl_barrier.h"
#include "fricl/fricl_barrier_cl.h"
#include "fricl/fricl_cl.h"

int main() {
  fricl_context *ctx = nullptr;
  fricl_context_destroy(ctx);
  fricl_barrier_batch_cl bc;
  fricl_barrier_batch_cl_init(&bc);
  return fricl_version_number() == FRICL_VERSION_NUMBER ? 0 : 1;
}
