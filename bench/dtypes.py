"""Every element type of the pallas dialect, as the runners see it: the
NumPy dtype of its .npy form (what pallas-run and pallas-launch read and
write: bf16 as <u2 and the f8 types as u1 bit patterns), its torch dtype,
random non-zero inputs of it, and its values as float64 for comparison."""
import numpy as np

try:
    import ml_dtypes
except ImportError:  # the GPU machine may lack it: bit-level fallbacks below
    ml_dtypes = None

# dialect dtype -> NumPy dtype of the .npy file
NPY = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "bf16": np.uint16,
       "f8E4M3FN": np.uint8, "f8E5M2": np.uint8, "i64": np.int64, "i32": np.int32,
       "i16": np.int16, "i8": np.int8, "i1": np.bool_}
INTS = ("i64", "i32", "i16", "i8", "i1")
# Bit-pattern dtypes: the ml_dtypes type that gives them their values.
BITS = {"bf16": "bfloat16", "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2"}


def torch_dtype(dtype):
    import torch
    return {"f64": torch.float64, "f32": torch.float32, "f16": torch.float16,
            "bf16": torch.bfloat16, "f8E4M3FN": torch.float8_e4m3fn,
            "f8E5M2": torch.float8_e5m2, "i64": torch.int64, "i32": torch.int32,
            "i16": torch.int16, "i8": torch.int8, "i1": torch.bool}[dtype]


def from_float(f, dtype):
    """float values -> the .npy array of `dtype` (round to nearest even)."""
    f = np.asarray(f, np.float32)
    if dtype == "bf16" and ml_dtypes is None:
        u = f.view(np.uint32).astype(np.uint64)
        return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    if dtype in BITS:
        return f.astype(getattr(ml_dtypes, BITS[dtype])).view(NPY[dtype])
    return f.astype(NPY[dtype])


def to_float(a, dtype):
    """The .npy array of `dtype` -> float64 values (ints exactly)."""
    a = np.asarray(a)
    if dtype == "bf16" and ml_dtypes is None:
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if dtype in BITS:
        return a.view(getattr(ml_dtypes, BITS[dtype])).astype(np.float64)
    return a.astype(np.float64)


def random_input(rng, shape, dtype, int_range=(0, 1000)):
    """Random non-zero values of `dtype`, in its .npy form."""
    if dtype == "i1":
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype in INTS:
        lo, hi = int_range
        if dtype == "i8":
            lo, hi = max(lo, -128), min(hi, 128)
        a = rng.integers(lo, hi, shape)
        a[a == 0] = 1
        return a.astype(NPY[dtype])
    f = rng.standard_normal(shape).astype(np.float32)
    f[np.abs(f) < 1e-3] = 0.5
    return from_float(f, dtype)


def to_torch(a, dtype, device="cuda"):
    """The .npy array -> a torch tensor of `dtype` on `device`."""
    import torch
    if dtype in BITS:
        t = torch.from_numpy(np.ascontiguousarray(a).view(
            np.int16 if dtype == "bf16" else np.uint8)).to(device)
        return t.view(torch_dtype(dtype))
    return torch.from_numpy(np.ascontiguousarray(a)).to(device)


def from_torch(t, dtype):
    """A torch tensor of `dtype` -> its .npy array."""
    import torch
    if dtype in BITS:
        return t.view(torch.int16 if dtype == "bf16" else torch.uint8).cpu().numpy().view(NPY[dtype])
    return t.cpu().numpy()
