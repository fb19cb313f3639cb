# Type stubs of fricl._native, the CPython extension (python/src). It takes
# buffers only (no conversion): each must be C-contiguous, of the element
# type and exact length the call needs, or InvalidArgumentError is raised.
from typing import Any, Dict, List, Optional, Tuple

Buffer = Any  # any object exporting the buffer protocol (numpy arrays)

def version_string() -> str: ...
def version_number() -> int: ...
def tables() -> Dict[str, List[Optional[str]]]: ...
def stencil_sizes() -> List[Tuple[int, int]]: ...
def devices() -> List[Dict[str, Any]]: ...
def _register_errors(classes: Tuple[Any, ...]) -> None: ...

class Context:
    backend: int
    device_name: str
    fell_back: bool
    has_fp64: bool
    closed: bool
    def __new__(cls, device: Optional[str] = ..., max_chunk_elements: int = ...,
                flags: int = ..., build_options: Optional[str] = ...) -> Any: ...
    def close(self) -> None: ...

class Groups:
    dim: int
    n_groups: int
    count: int
    def __new__(cls, dim: int, precision: int,
                groups: Tuple[Tuple[Any, ...], ...]) -> "Groups": ...
    def same(self, other: "Groups") -> bool: ...

class BarrierGroups:
    def __new__(cls, dim: int, precision: int,
                groups: Tuple[Tuple[Any, ...], ...]) -> "BarrierGroups": ...

class BuildGroups:
    layout: Tuple[Tuple[int, ...], ...]
    n_reals: int
    n_status: int
    n_words: int
    def __new__(cls, dim: int, groups: Tuple[Tuple[Any, ...], ...],
                normal_force_gradient: bool) -> "BuildGroups": ...

class Plan:
    dim: int
    n_vertices: int
    nnz_blocks: int
    closed: bool
    def __new__(cls, ctx: Context, groups: Groups, n_vertices: int) -> Any: ...
    def bsr_pattern(self, row_ptr: Buffer, block_cols: Buffer) -> None: ...
    def csr(self, precision: int, bsr_values: Optional[Buffer],
            row_ptr: Optional[Buffer], cols: Optional[Buffer],
            values: Optional[Buffer]) -> None: ...
    def csc(self, precision: int, bsr_values: Optional[Buffer],
            indptr: Optional[Buffer], indices: Optional[Buffer],
            data: Optional[Buffer], index64: bool) -> None: ...
    def close(self) -> None: ...

def scalar_eval(ctx: Context, precision: int, profile: int, terms: int,
                y: Buffer, eps_v: Any, mu_s: Any, mu_k: Any,
                outs: Tuple[Optional[Buffer], ...],
                repeat: Optional[int] = ...) -> Optional[List[float]]: ...
def tangential_eval(ctx: Context, groups: Groups, plan: Optional[Plan],
                    profile: int, psd: int, flags: int, n_vertices: int,
                    velocities: Buffer, eps_v: float,
                    direction: Optional[Buffer], potential: Optional[Buffer],
                    gradient: Optional[Buffer],
                    hessian_values: Optional[Buffer],
                    hessian_product: Optional[Buffer],
                    per_group: Optional[Tuple[Tuple[Any, ...], ...]],
                    repeat: Optional[int] = ...,
                    mollifier: int = ...) -> Optional[List[float]]: ...
def barrier_eval(ctx: Context, precision: int, dim: int, flags: int,
                 psd: int, positions: Buffer,
                 rest_positions: Optional[Buffer], dhat: float, kappa: float,
                 dmin: float, groups: Tuple[Tuple[Any, ...], ...],
                 gradient: Optional[Buffer], want_hessian: bool,
                 plan: Optional[Plan] = ...,
                 hessian_values: Optional[Buffer] = ...,
                 function: Optional[Tuple[int, float, float, float,
                                          float]] = ...,
                 outputs: Optional[Tuple[Tuple[Any, ...], ...]] = ...,
                 gn_diagonal: Optional[Buffer] = ...,
                 direction: Optional[Buffer] = ...,
                 gn_quadratic_form: Optional[Buffer] = ...
                 ) -> Tuple[float, Optional[Tuple[bytes, bytes, bytes, int]]]:
    ...
def shape_assemble(n: int, h_indptr: Buffer, h_indices: Buffer,
                   h_data: Buffer, a_ptr: Buffer, a_rows: Buffer,
                   a_vals: Buffer, w_ptr: Buffer, w_coll: Buffer,
                   w_vals: Buffer, indptr: Optional[Buffer],
                   indices: Optional[Buffer], data: Optional[Buffer]
                   ) -> Optional[Tuple[bytes, bytes]]: ...
def force_eval(ctx: Context, precision: int, profile: int, dim: int,
               flags: int, wrt: int, rest_positions: Optional[Buffer],
               lagged_displacements: Buffer, velocities: Buffer,
               eps_v: float, kappa: float, dhat: float, dmin: float,
               groups: Tuple[Tuple[Any, ...], ...], force: Optional[Buffer],
               plan: Optional[Plan], jacobian_values: Optional[Buffer],
               per_group: Optional[Tuple[Tuple[Any, ...], ...]],
               column_major: int = ...) -> None: ...
def build(ctx: Context, precision: int, dim: int, flags: int,
          lagged_positions: Buffer, rest_positions: Optional[Buffer],
          kappa: float, dhat: float, dmin: float, mu_s: Any, mu_k: Any,
          blend: int, groups: Tuple[Tuple[Any, ...], ...]
          ) -> Tuple[List[int], List[int], List[int], int, int]: ...
def build_packed(ctx: Context, groups: BuildGroups, flags: int,
                 lagged_positions: Buffer, rest_positions: Optional[Buffer],
                 kappa: float, dhat: float, dmin: float, mu_s: Any,
                 mu_k: Any, blend: int, out: Buffer) -> Tuple[int, int]: ...
def packed_groups(prep: BuildGroups, out: Buffer, drop: int) -> Groups: ...
def collision_mesh(ctx: Context, dim: int, rest: Buffer, edges: Buffer,
                   faces: Buffer) -> Any: ...
def collisions_build(ctx: Context, mesh: Any, dim: int, X: Buffer,
                     dhat: float, dmin: float, flags: int,
                     plane_normals: Optional[Buffer],
                     plane_offsets: Optional[Buffer]
                     ) -> Tuple[Tuple[Any, ...], ...]: ...
def candidates_build(ctx: Context, mesh: Any, dim: int, X0: Buffer,
                     X1: Optional[Buffer], radius: float,
                     plane_normals: Optional[Buffer],
                     plane_offsets: Optional[Buffer]
                     ) -> Tuple[Tuple[bytes, ...], Any]: ...
def ccd_stepsize(ctx: Context, mesh: Any, candidates: Any, dim: int,
                 X0: Buffer, X1: Buffer, plane_normals: Optional[Buffer],
                 plane_offsets: Optional[Buffer], min_distance: float,
                 conservative_rescaling: float, max_iterations: int,
                 with_tois: bool) -> Any: ...
def law(ctx: Context, step: bool, precision: int, law: int, options: int,
        n: int, n_steps: int, h: float, integrator: int, v: Optional[Buffer],
        x: Optional[Buffer], normal: Optional[Buffer], normal_per_step: bool,
        normal_force: float, params: Tuple[float, ...],
        param_arrays: Tuple[Optional[Buffer], ...], gms_elements: int,
        gms_params: Optional[Buffer], gms_per_element: bool,
        state: Optional[Buffer], state_out: Optional[Buffer],
        force: Optional[Buffer], dstate: Optional[Buffer]) -> None: ...
def law_info(law: int) -> Dict[str, Any]: ...
