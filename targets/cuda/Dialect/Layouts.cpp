//===- Layouts.cpp - register layouts of tile IR tensors on CUDA ----------===//
#include "Dialect/Layouts.h"

#include "pallas/Gpu/Gpu.h"
#include "pallas/Spec/LaunchAttributes.h"

using namespace mlir;
using namespace mlir::pallas;
using namespace mlir::pallas::cuda;

BlockedLayout::BlockedLayout(int64_t n, int64_t t) : numElements(n), threads(t) {
  // Four elements: 16-byte accesses for 32-bit types, and a warp covers
  // 512 consecutive bytes per access (eight measured slower on streaming
  // kernels with few elements per thread). Big tiles (32 or more elements
  // per thread, as dot operands) take eight, so that 16-bit types get
  // 16-byte accesses too.
  vec = n / t >= 32 ? 8 : std::min<int64_t>(4, std::max<int64_t>(1, n / t));
  chunks = n / vec;
  perThread = chunks >= t ? n / t : vec;
}

std::optional<MmaLayout> MmaLayout::forShape(int64_t m, int64_t n, int64_t threads) {
  MmaLayout l;
  l.m = m;
  l.n = n;
  int64_t warps = threads / 32;
  while (l.warpsM * l.warpsN < warps) {
    bool canM = m % (l.warpsM * 2 * 16) == 0;
    bool canN = n % (l.warpsN * 2 * 8) == 0;
    if (canM && (m / l.warpsM >= n / l.warpsN || !canN))
      l.warpsM *= 2;
    else if (canN)
      l.warpsN *= 2;
    else
      return std::nullopt;
  }
  if (m % (16 * l.warpsM) || n % (8 * l.warpsN))
    return std::nullopt;
  l.tilesM = m / l.warpsM / 16;
  l.tilesN = n / l.warpsN / 8;
  return l;
}

std::optional<MmaLayout> MmaLayout::wholeRows(int64_t m, int64_t n, int64_t threads) {
  int64_t warps = threads / 32;
  if (warps < 1 || m % (16 * warps) || n % 8)
    return std::nullopt;
  MmaLayout l;
  l.m = m;
  l.n = n;
  l.warpsM = warps;
  l.tilesM = m / warps / 16;
  l.tilesN = n / 8;
  return l;
}

std::optional<MmaLayout> cuda::wgmmaLayout(int64_t m, int64_t n, int64_t threads,
                                           int64_t maxTilesM) {
  int64_t warps = threads / 32;
  if (warps % 4 || m % (16 * warps) || m / (16 * warps) > maxTilesM || n % 8 || n > 256)
    return std::nullopt;
  MmaLayout l;
  l.m = m;
  l.n = n;
  l.warpsM = warps;
  l.warpsN = 1;
  l.tilesM = m / (16 * warps);
  l.interleaved = true;
  l.tilesN = n / 8;
  return l;
}

std::optional<MmaLayout> cuda::wgmmaColumnSplitLayout(int64_t m, int64_t n, int64_t threads,
                                                      int64_t columnQuantum) {
  int64_t groups = threads / 128;
  if (threads % 128 || m % 64 || m / 64 >= groups || groups % (m / 64))
    return std::nullopt;
  int64_t groupsN = groups / (m / 64);
  if (n % groupsN || (n / groupsN) % columnQuantum || (n / groupsN) % 8 || n / groupsN > 256)
    return std::nullopt;
  MmaLayout l;
  l.m = m;
  l.n = n;
  l.warpsM = m / 16;
  l.warpsN = groupsN;
  l.tilesM = 1;
  l.tilesN = n / groupsN / 8;
  l.interleaved = true;
  l.warpsAlongMFirst = true;
  return l;
}

Attribute cuda::mmaEncoding(MLIRContext *ctx, const MmaLayout &layout) {
  return pgpu::MmaEncodingAttr::get(ctx, layout.warpsM, layout.warpsN);
}

Attribute cuda::wgmmaEncoding(MLIRContext *ctx, int64_t warps, int64_t columnGroups) {
  return pgpu::WgmmaEncodingAttr::get(ctx, warps, columnGroups);
}

bool cuda::hasColumnSplitWgmmaLayout(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  auto w = t ? dyn_cast_or_null<pgpu::WgmmaEncodingAttr>(t.getEncoding()) : nullptr;
  return w && w.getColumnGroups() > 1;
}

bool cuda::hasWgmmaLayout(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && isa_and_nonnull<pgpu::WgmmaEncodingAttr>(t.getEncoding());
}

bool cuda::hasWgmmaF8ALayout(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && isa_and_nonnull<pgpu::WgmmaF8AEncodingAttr>(t.getEncoding());
}

bool cuda::hasMmaLayout(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && isa_and_nonnull<pgpu::MmaEncodingAttr, pgpu::WgmmaEncodingAttr>(t.getEncoding());
}

LaunchAttr cuda::launchOf(Operation *op) {
  for (; op; op = op->getParentOp())
    if (LaunchAttr launch = getLaunch(op))
      return launch;
  return {};
}

/// The layout `encoding` (mma or wgmma) gives an [m, n] tensor.
static std::optional<MmaLayout> layoutFor(Attribute encoding, int64_t m, int64_t n) {
  MmaLayout l;
  l.m = m;
  l.n = n;
  if (auto w = dyn_cast_or_null<pgpu::WgmmaEncodingAttr>(encoding)) {
    l.warpsM = w.getWarps() / w.getColumnGroups();
    l.warpsN = w.getColumnGroups();
    l.warpsAlongMFirst = w.getColumnGroups() > 1;
    l.interleaved = true;
  } else if (auto mma = dyn_cast_or_null<pgpu::MmaEncodingAttr>(encoding)) {
    l.warpsM = mma.getWarpsM();
    l.warpsN = mma.getWarpsN();
  } else {
    return std::nullopt;
  }
  if (l.m % (16 * l.warpsM) || l.n % (8 * l.warpsN))
    return std::nullopt;
  l.tilesM = l.m / l.warpsM / 16;
  l.tilesN = l.n / l.warpsN / 8;
  return l;
}

std::optional<MmaLayout> cuda::mmaLayoutOf(RankedTensorType t) {
  if (t.getRank() != 2)
    return std::nullopt;
  return layoutFor(t.getEncoding(), t.getDimSize(0), t.getDimSize(1));
}

bool cuda::hasSliceLayout(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && isa_and_nonnull<pgpu::SliceEncodingAttr>(t.getEncoding());
}

Attribute cuda::sliceEncoding(MLIRContext *ctx, Attribute parent) {
  return pgpu::SliceEncodingAttr::get(ctx, 1, parent);
}

std::optional<MmaLayout> cuda::sliceParentOf(RankedTensorType t) {
  auto slice = dyn_cast_or_null<pgpu::SliceEncodingAttr>(t.getEncoding());
  if (!slice || t.getRank() < 1 || t.getRank() > 2 ||
      (t.getRank() == 2 && t.getDimSize(1) != 1))
    return std::nullopt;
  int64_t warpsN = 1;
  if (auto mma = dyn_cast<pgpu::MmaEncodingAttr>(slice.getParent()))
    warpsN = mma.getWarpsN();
  else if (auto w = dyn_cast<pgpu::WgmmaEncodingAttr>(slice.getParent()))
    warpsN = w.getColumnGroups();
  return layoutFor(slice.getParent(), t.getDimSize(0), 8 * warpsN);
}

/// Registers a consumer thread is estimated to need: what the loops carry
/// and their dots' results (the accumulators), 32-bit each, beside 32 for
/// addresses and the rest.
int64_t cuda::loopRegisterEstimate(tt::FuncOp func, int64_t threads) {
  auto regs = [&](Type t) -> int64_t {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || isa<tt::PointerType>(tensor.getElementType()))
      return 0;
    int64_t bits = std::max<int64_t>(32, tensor.getElementTypeBitWidth());
    return tensor.getNumElements() * bits / 32 / threads;
  };
  int64_t most = 0;
  func->walk([&](scf::ForOp loop) {
    int64_t n = 0;
    for (Value v : loop.getRegionIterArgs())
      n += regs(v.getType());
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (tt::DotOp dot : loop.getBody()->getOps<tt::DotOp>())
      if (!llvm::is_contained(yield.getOperands(), dot.getResult()))
        n += regs(dot.getType());
    most = std::max(most, n);
  });
  return most + 32;
}
