//===- Plan.cpp - What a launch of a graph needs, computed once -----------===//
//
// Builds plans from verified graphs: index errors are the verifier's, so
// this only rejects what the executor cannot run yet.
//
//===----------------------------------------------------------------------===//

#include "Plan.h"
#include "Executor.h"
#include "PlanBuilder.h"

#include "hpvm/rt/Stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace hpvm;
using namespace hpvm::rt;

NodePlan::NodePlan() = default;
NodePlan::~NodePlan() = default;

Frame *NodePlan::takeFrame() const {
  {
    std::lock_guard<std::mutex> L(FrameM);
    if (!FreeFrames.empty()) {
      Frame *F = FreeFrames.back().release();
      FreeFrames.pop_back();
      return F;
    }
  }
  return new Frame(*this);
}

void NodePlan::returnFrame(Frame *F) const {
  std::unique_ptr<Frame> Owned(F);
  std::lock_guard<std::mutex> L(FrameM);
  FreeFrames.push_back(std::move(Owned));
}

Frame::Frame(const NodePlan &P)
    : P(P), Remaining(new std::atomic<unsigned>[P.Children.size()]),
      Tasks(new ChildTask[P.Children.size()]), Slots(P.NumSlots, 0),
      ChildArgs(P.ArgSources.size(), nullptr), ChildOuts(P.NumSlots, nullptr),
      OuterIds(3 * (P.Depth + 1), 0) {
  for (unsigned I = 0; I != P.NumSlots; ++I)
    ChildOuts[I] = &Slots[I];
}

Frame::~Frame() = default;

int64_t hpvm::rt::readInteger(const void *V, ScalarType T) {
  switch (T) {
  case ScalarType::I1:
    return *static_cast<const uint8_t *>(V) & 1;
  case ScalarType::I8:
    return *static_cast<const int8_t *>(V);
  case ScalarType::I16: {
    int16_t X;
    std::memcpy(&X, V, sizeof(X));
    return X;
  }
  case ScalarType::I32: {
    int32_t X;
    std::memcpy(&X, V, sizeof(X));
    return X;
  }
  default: {
    int64_t X;
    std::memcpy(&X, V, sizeof(X));
    return X;
  }
  }
}

unsigned hpvm::rt::typeSize(ScalarType T) {
  switch (T) {
  case ScalarType::I1:
  case ScalarType::I8:
    return 1;
  case ScalarType::I16:
  case ScalarType::F16:
    return 2;
  case ScalarType::I32:
  case ScalarType::F32:
    return 4;
  case ScalarType::I64:
  case ScalarType::F64:
  case ScalarType::Ptr:
    return 8;
  }
  return 8;
}

uint16_t hpvm::rt::toHalf(double V) {
  uint64_t Bits;
  std::memcpy(&Bits, &V, sizeof(Bits));
  uint16_t Sign = static_cast<uint16_t>((Bits >> 48) & 0x8000);
  int Exp = static_cast<int>((Bits >> 52) & 0x7ff);
  uint64_t Mant = Bits & ((uint64_t(1) << 52) - 1);
  if (Exp == 0x7ff) // keep NaNs NaN, whatever their payload
    return Sign | 0x7c00 | (Mant ? 0x200 | (Mant >> 42) : 0);
  if (Exp == 0) // double subnormals are far below the smallest half
    return Sign;
  int E = Exp - 1023 + 15; // biased half exponent
  uint64_t M = Mant | (uint64_t(1) << 52);
  // Normal halves keep 11 significant bits (implicit one included), which
  // then adds one to the exponent field; subnormals keep fewer.
  uint64_t Base = E >= 1 ? static_cast<uint64_t>(E - 1) << 10 : 0;
  unsigned Shift = E >= 1 ? 42 : static_cast<unsigned>(42 + 1 - E);
  if (Shift > 60)
    return Sign;
  uint64_t Q = M >> Shift;
  uint64_t Rem = M & ((uint64_t(1) << Shift) - 1);
  uint64_t Half = uint64_t(1) << (Shift - 1);
  if (Rem > Half || (Rem == Half && (Q & 1)))
    ++Q;
  uint64_t Result = Base + Q;
  if (Result >= 0x7c00)
    return Sign | 0x7c00;
  return Sign | static_cast<uint16_t>(Result);
}

namespace {

/// Stores a constant binding in the child parameter's own type, so that the
/// leaf reads it exactly as it reads any other argument.
uint64_t constantSlot(const Binding &B, ScalarType T) {
  uint64_t Slot = 0;
  auto Put = [&](auto V) { std::memcpy(&Slot, &V, sizeof(V)); };
  switch (T) {
  case ScalarType::I1:
    Put(static_cast<uint8_t>(B.IntValue != 0));
    break;
  case ScalarType::I8:
    Put(static_cast<int8_t>(B.IntValue));
    break;
  case ScalarType::I16:
    Put(static_cast<int16_t>(B.IntValue));
    break;
  case ScalarType::I32:
    Put(static_cast<int32_t>(B.IntValue));
    break;
  case ScalarType::I64:
  case ScalarType::Ptr:
    Put(static_cast<int64_t>(B.IntValue));
    break;
  case ScalarType::F16:
    Put(toHalf(B.FloatValue));
    break;
  case ScalarType::F32:
    Put(static_cast<float>(B.FloatValue));
    break;
  case ScalarType::F64:
    Put(B.FloatValue);
    break;
  }
  return Slot;
}

class Builder {
public:
  Builder(GraphPlan &G, Stats &S, std::atomic<unsigned> &NextLeafId)
      : G(G), S(S), NextLeafId(NextLeafId) {}

  std::unique_ptr<NodePlan> build(const Node &N, unsigned Depth,
                                  bool UnderReplicated) {
    auto P = std::make_unique<NodePlan>();
    P->N = &N;
    P->Path = N.path();
    P->Depth = Depth;
    P->Replicated = !N.Dims.empty();
    P->UnderReplicated = UnderReplicated;
    if (N.isLeaf()) {
      P->LeafId = NextLeafId.fetch_add(1, std::memory_order_relaxed);
      for (unsigned I = 0, E = static_cast<unsigned>(N.Params.size()); I != E;
           ++I)
        if (const Param &Prm = N.Params[I]; Prm.isBuffer()) {
          P->BufferParams.push_back(I);
          bool PerInstance =
              std::any_of(Prm.Offset.begin(), Prm.Offset.end(),
                          [](const OffsetTerm &T) { return T.Level > 0; });
          P->SharedWrites |= writes(Prm.Mode) && !PerInstance;
        }
      G.Leaves.push_back(P.get());
      return P;
    }

    P->Stats = &S.entry(P->Path, "host");
    size_t NumChildren = N.Children.size();
    for (const auto &C : N.Children)
      P->Children.push_back(
          build(*C, Depth + 1, UnderReplicated || P->Replicated));

    unsigned NumParams = 0;
    for (size_t C = 0; C != NumChildren; ++C) {
      P->ParamBase.push_back(NumParams);
      P->OutBase.push_back(P->NumSlots);
      NumParams += static_cast<unsigned>(N.Children[C]->Params.size());
      P->NumSlots += static_cast<unsigned>(N.Children[C]->Outputs.size());
    }
    P->ArgSources.resize(NumParams);

    for (const Binding &B : N.Bindings) {
      ArgSource &A = P->ArgSources[P->ParamBase[B.Child] + B.ChildParam];
      if (B.From == Binding::Source::ParentParam) {
        A.From = ArgSource::Parent;
        A.Index = B.ParentParam;
        continue;
      }
      A.From = ArgSource::Constant;
      A.Index = static_cast<unsigned>(P->Constants.size());
      P->Constants.push_back(
          constantSlot(B, N.Children[B.Child]->Params[B.ChildParam].Type));
    }

    P->PredCount.assign(NumChildren, 0);
    P->Succ.resize(NumChildren);
    for (const Edge &E : N.Edges) {
      // A streaming edge carries its value as a value edge does; its
      // capacity matters only between the stages of a stream (Stream.cpp),
      // where its source may run ahead of its destination. A launch is a
      // stream of one frame, and deeper nodes run within one stage.
      if (E.Kind != EdgeKind::Dependency) {
        ArgSource &A = P->ArgSources[P->ParamBase[E.Dst] + E.DstParam];
        A.From = ArgSource::Slot;
        A.Index = P->OutBase[E.Src] + E.SrcOutput;
        checkProduces(*P->Children[E.Src], E.SrcOutput);
      }
      std::vector<unsigned> &Succ = P->Succ[E.Src];
      if (std::find(Succ.begin(), Succ.end(), E.Dst) == Succ.end()) {
        Succ.push_back(E.Dst);
        ++P->PredCount[E.Dst];
      }
    }
    for (unsigned C = 0; C != NumChildren; ++C)
      if (P->PredCount[C] == 0)
        P->Roots.push_back(C);
    // One root and no child with two successors: a chain.
    P->ParallelChildren = P->Roots.size() > 1;
    for (const std::vector<unsigned> &Succ : P->Succ)
      P->ParallelChildren |= Succ.size() > 1;
    // Dependency and value edges make no cycle (the verifier says so);
    // streaming edges may, and a cycle needs a first value on it that
    // nothing gives.
    if (hasCycle(*P))
      unsupported("graph '" + G.Name + "': the streaming edges in node '" +
                  P->Path +
                  "' close a cycle, which would need initial values on its "
                  "edges; the executor does not support that yet");

    P->OutputSlots.assign(N.Outputs.size(), 0);
    for (const OutputBinding &B : N.OutputBindings)
      P->OutputSlots[B.ParentOutput] = P->OutBase[B.Child] + B.ChildOutput;

    // One child means no edges, so every argument of the leaf is bound to
    // a parameter of this node or a constant.
    const Node *Only = NumChildren == 1 ? N.Children[0].get() : nullptr;
    // A sequential node's iterations must not run as one grid.
    P->GridLeaf = P->Replicated && !N.Sequential && Only && Only->isLeaf() &&
                  !Only->Dims.empty() && Only->Outputs.empty();
    return P;
  }

private:
  GraphPlan &G;
  Stats &S;
  std::atomic<unsigned> &NextLeafId;

  /// Whether the children's edges make a cycle (Kahn's algorithm).
  static bool hasCycle(const NodePlan &P) {
    std::vector<unsigned> Count = P.PredCount;
    std::vector<unsigned> Ready = P.Roots;
    size_t Seen = 0;
    while (!Ready.empty()) {
      unsigned C = Ready.back();
      Ready.pop_back();
      ++Seen;
      for (unsigned S : P.Succ[C])
        if (--Count[S] == 0)
          Ready.push_back(S);
    }
    return Seen != P.Children.size();
  }

  void unsupported(const std::string &Message) {
    if (G.Unsupported.empty())
      G.Unsupported = Message;
  }

  // Only a non-replicated node has one value per output; a replicated one
  // would have one per instance and no rule says which is meant.
  void checkProduces(const NodePlan &P, unsigned Output) {
    const Node &N = *P.N;
    std::string What = "output '" + N.Outputs[Output].Name + "' of '" + P.Path +
                       "' feeds a value edge";
    if (P.Replicated) {
      unsupported(What + ", but the node is replicated; only non-replicated "
                         "nodes produce values");
      return;
    }
    if (N.isLeaf())
      return;
    for (const OutputBinding &B : N.OutputBindings)
      if (B.ParentOutput == Output) {
        checkProduces(*P.Children[B.Child], B.ChildOutput);
        return;
      }
  }
};

} // namespace

std::unique_ptr<GraphPlan>
hpvm::rt::buildGraphPlan(const Graph &G, Stats &S,
                         std::atomic<unsigned> &NextLeafId) {
  auto Plan = std::make_unique<GraphPlan>();
  Plan->Name = G.name();
  Plan->G = &G;
  Plan->Root = Builder(*Plan, S, NextLeafId).build(G.root(), 0, false);
  for (const Param &P : G.root().Params)
    Plan->BufferNames.push_back(P.isBuffer() ? G.name() + ":" + P.Name : "");
  Plan->EndStats = &S.entry(Plan->Root->Path, "host");
  return Plan;
}
