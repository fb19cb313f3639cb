/* header_c99.c - the public headers compile on their own as strict C99. */
#include "fricl/fricl.h"
#include "fricl/fricl_barrier.h"
#include "fricl/fricl_barrier_cl.h"
#include "fricl/fricl_cl.h"

int main(void) {
  fricl_scalar_batch b;
  fricl_scalar_batch_init(&b);
  fricl_barrier_batch_cl bc;
  fricl_barrier_batch_cl_init(&bc);
  return fricl_version_number() == FRICL_VERSION_NUMBER ? 0 : 1;
}
