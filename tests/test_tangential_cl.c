/*
 * test_tangential_cl.c - the cl_mem tier of the tangential potential: the
 * same results, bitwise, as the host tier on the same device, with buffer
 * offsets, a wait list and a completion event; device-resident vertex
 * indices out of range give NaN for their contact only; UNSUPPORTED on the
 * reference backend.
 */
#include "fricl/fricl_cl.h"
#include "tangential_scene.h"

#define OFF 3 /* element offset of every device array */

static cl_mem upload(cl_context c, cl_command_queue q, const void *src,
                     size_t bytes, size_t esz) {
  cl_int err;
  cl_mem m =
      clCreateBuffer(c, CL_MEM_READ_WRITE, bytes + OFF * esz + 64, NULL, &err);
  if (err != CL_SUCCESS)
    return NULL;
  if (src && bytes)
    clEnqueueWriteBuffer(q, m, CL_TRUE, OFF * esz, bytes, src, 0, NULL, NULL);
  return m;
}

static void run_device(const test_backend *be) {
  fricl_context *ctx = test_context(be->spec, 0, 0);
  if (!ctx)
    return;
  cl_context cc;
  cl_command_queue q;
  fricl_context_get_cl(ctx, &cc, NULL, &q);
  scene_group s;
  scene_random(&s, FRICL_STENCIL_FV, 3, 40, 30, 1);
  int32_t vx[160];
  double beta[80], P[240], a[80];
  fricl_contact_group G = scene_view(&s, vx, beta, P, a, 1);
  double vel[90], dir[90];
  for (int i = 0; i < 90; ++i) {
    vel[i] = urange(-2e-3, 2e-3);
    dir[i] = urange(-1, 1);
  }
  fricl_tangential_plan *plan = NULL;
  CHECK(fricl_tangential_plan_create(ctx, 3, 30, 1, &G, &plan) ==
            FRICL_STATUS_OK,
        "plan");
  size_t nnz = 0;
  fricl_tangential_plan_bsr(plan, NULL, &nnz, NULL, NULL);
  /* Host tier. */
  double pot_h, grad_h[90], prod_h[90], *hess_h = malloc(nnz * 9 * 8);
  double gpot_h[40], loc_h[40 * 144];
  G.potential = gpot_h;
  G.local_hessian = loc_h;
  fricl_tangential_batch hb;
  fricl_tangential_batch_init(&hb);
  hb.psd = FRICL_PSD_CLAMP;
  hb.n_vertices = 30;
  hb.velocities = vel;
  hb.eps_v = 1e-3;
  hb.n_groups = 1;
  hb.groups = &G;
  hb.plan = plan;
  hb.direction = dir;
  hb.potential = &pot_h;
  hb.gradient = grad_h;
  hb.hessian_product = prod_h;
  hb.hessian_values = hess_h;
  CHECK(fricl_tangential_eval(ctx, &hb) == FRICL_STATUS_OK, "host: %s",
        fricl_context_last_error(ctx));
  /* cl_mem tier on the same data, every array at an offset. */
  fricl_contact_group_cl D;
  memset(&D, 0, sizeof D);
  D.type = FRICL_STENCIL_FV;
  D.count = 40;
  cl_mem bufs[16];
  int nb = 0;
#define DEV(field, src, bytes, esz)                                            \
  do {                                                                         \
    bufs[nb] = upload(cc, q, src, bytes, esz);                                 \
    D.field = (fricl_buffer_cl){bufs[nb++], OFF};                              \
  } while (0)
  DEV(vertices, vx, sizeof vx, 4);
  DEV(closest_point, beta, sizeof beta, 8);
  DEV(tangent_basis, P, sizeof P, 8);
  DEV(normal_force, s.N, 40 * 8, 8);
  DEV(weight, s.w, 40 * 8, 8);
  DEV(mu_s, s.ms, 40 * 8, 8);
  DEV(mu_k, s.mk, 40 * 8, 8);
  DEV(mu_aniso, a, sizeof a, 8);
  DEV(potential, NULL, 40 * 8, 8);
  DEV(local_hessian, NULL, sizeof loc_h, 8);
  fricl_tangential_batch_cl db;
  fricl_tangential_batch_cl_init(&db);
  db.psd = FRICL_PSD_CLAMP;
  db.n_vertices = 30;
  db.eps_v = 1e-3;
  db.n_groups = 1;
  db.groups = &D;
  db.plan = plan;
  cl_mem vb = upload(cc, q, vel, sizeof vel, 8);
  cl_mem pb = upload(cc, q, dir, sizeof dir, 8);
  cl_mem ob[4] = {upload(cc, q, NULL, 8, 8), upload(cc, q, NULL, 90 * 8, 8),
                  upload(cc, q, NULL, 90 * 8, 8),
                  upload(cc, q, NULL, nnz * 72, 8)};
  db.velocities = (fricl_buffer_cl){vb, OFF};
  db.direction = (fricl_buffer_cl){pb, OFF};
  db.potential = (fricl_buffer_cl){ob[0], OFF};
  db.gradient = (fricl_buffer_cl){ob[1], OFF};
  db.hessian_product = (fricl_buffer_cl){ob[2], OFF};
  db.hessian_values = (fricl_buffer_cl){ob[3], OFF};
  cl_event user = clCreateUserEvent(cc, NULL), done = NULL;
  CHECK(fricl_tangential_eval_cl(ctx, &db, 1, &user, &done) == FRICL_STATUS_OK,
        "cl tier: %s", fricl_context_last_error(ctx));
  clSetUserEventStatus(user, CL_COMPLETE);
  if (done) {
    clWaitForEvents(1, &done);
    clReleaseEvent(done);
  }
  clReleaseEvent(user);
  double pot_d, grad_d[90], prod_d[90], *hess_d = malloc(nnz * 72);
  double gpot_d[40], *loc_d = malloc(sizeof loc_h);
  clEnqueueReadBuffer(q, ob[0], CL_TRUE, OFF * 8, 8, &pot_d, 0, NULL, NULL);
  clEnqueueReadBuffer(q, ob[1], CL_TRUE, OFF * 8, sizeof grad_d, grad_d, 0,
                      NULL, NULL);
  clEnqueueReadBuffer(q, ob[2], CL_TRUE, OFF * 8, sizeof prod_d, prod_d, 0,
                      NULL, NULL);
  clEnqueueReadBuffer(q, ob[3], CL_TRUE, OFF * 8, nnz * 72, hess_d, 0, NULL,
                      NULL);
  clEnqueueReadBuffer(q, D.potential.mem, CL_TRUE, OFF * 8, sizeof gpot_d,
                      gpot_d, 0, NULL, NULL);
  clEnqueueReadBuffer(q, D.local_hessian.mem, CL_TRUE, OFF * 8, sizeof loc_h,
                      loc_d, 0, NULL, NULL);
  CHECK(pot_d == pot_h, "%s: potential %.17g vs host %.17g", be->label, pot_d,
        pot_h);
  CHECK(memcmp(grad_d, grad_h, sizeof grad_d) == 0 &&
            memcmp(prod_d, prod_h, sizeof prod_d) == 0 &&
            memcmp(hess_d, hess_h, nnz * 72) == 0 &&
            memcmp(gpot_d, gpot_h, sizeof gpot_d) == 0 &&
            memcmp(loc_d, loc_h, sizeof loc_h) == 0,
        "%s: cl_mem tier differs from the host tier", be->label);
  /* A device vertex index out of range: NaN for that contact only. */
  const int32_t bad = 1000;
  clEnqueueWriteBuffer(q, D.vertices.mem, CL_TRUE, (OFF + 4 * 5 + 2) * 4, 4,
                       &bad, 0, NULL, NULL);
  db.gradient = db.hessian_product = db.hessian_values =
      (fricl_buffer_cl){NULL, 0};
  CHECK(fricl_tangential_eval_cl(ctx, &db, 0, NULL, NULL) == FRICL_STATUS_OK,
        "%s", fricl_context_last_error(ctx));
  clEnqueueReadBuffer(q, D.potential.mem, CL_TRUE, OFF * 8, sizeof gpot_d,
                      gpot_d, 0, NULL, NULL);
  int others = 1;
  for (int c = 0; c < 40; ++c)
    if (c != 5)
      others &= gpot_d[c] == gpot_h[c];
  CHECK(isnan(gpot_d[5]) && others,
        "%s: out-of-range device index: contact 5 = %g, others unchanged %d",
        be->label, gpot_d[5], others);
  /* Missing plan for a gradient. */
  db.plan = NULL;
  db.gradient = (fricl_buffer_cl){ob[1], OFF};
  CHECK(fricl_tangential_eval_cl(ctx, &db, 0, NULL, NULL) ==
                FRICL_STATUS_INVALID_ARGUMENT &&
            strstr(fricl_context_last_error(ctx), "plan"),
        "plan required: %s", fricl_context_last_error(ctx));
  for (int i = 0; i < nb; ++i)
    clReleaseMemObject(bufs[i]);
  clReleaseMemObject(vb);
  clReleaseMemObject(pb);
  for (int i = 0; i < 4; ++i)
    clReleaseMemObject(ob[i]);
  free(hess_h), free(hess_d), free(loc_d);
  fricl_tangential_plan_destroy(plan);
  fricl_context_destroy(ctx);
}

int main(void) {
  test_backend be[TEST_MAX_BACKENDS];
  const int n = test_backends(be);
  fricl_context *ref = test_context("reference", 0, 0);
  if (ref) {
    fricl_tangential_batch_cl b;
    fricl_tangential_batch_cl_init(&b);
    CHECK(fricl_tangential_eval_cl(ref, &b, 0, NULL, NULL) ==
              FRICL_STATUS_UNSUPPORTED,
          "reference backend: UNSUPPORTED");
    fricl_context_destroy(ref);
  }
  fricl_context *host = test_context("host", 0, 0);
  if (host) {
    fricl_tangential_batch_cl b;
    fricl_tangential_batch_cl_init(&b);
    CHECK(fricl_tangential_eval_cl(host, &b, 0, NULL, NULL) ==
              FRICL_STATUS_UNSUPPORTED,
          "host backend: UNSUPPORTED");
    CHECK(strstr(fricl_context_last_error(host), "needs an OpenCL context"),
          "host backend: message %s", fricl_context_last_error(host));
    fricl_context_destroy(host);
  }
  /* The cl_mem tier exists on OpenCL devices only. */
  for (int i = 0; i < n; ++i)
    if (strncmp(be[i].spec, "opencl:", 7) == 0)
      run_device(&be[i]);
  return test_report("test_tangential_cl");
}
