//===- Stats.h - Per-node launch statistics ---------------------*- C++ -*-===//
//
// One entry per (node path, device): how often the node ran there, on how
// many instances, for how long. The executor updates entries with relaxed
// atomics on every execution; the heft scheduler reads them as its history.
// Entries are never freed, so pointers to them stay valid for the process.
//
//===----------------------------------------------------------------------===//
#ifndef HPVM_RT_STATS_H
#define HPVM_RT_STATS_H

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hpvm::rt {

class Coherence;

/// What a leaf's launches of about one size take on one device: the
/// performance model the dmda and auto policies (Scheduler.h) predict
/// with. Sizes are buckets of instance counts, by bit width (1, 2-3, 4-7,
/// ...): launches within a factor of two share a model. Only run times go
/// in (no compiling, no data movement: the executor's run time).
struct PerfModel {
  static constexpr unsigned Buckets = 65;
  static unsigned bucket(uint64_t Instances) {
    unsigned B = 0;
    for (; Instances; Instances >>= 1)
      ++B;
    return B;
  }
  struct Size {
    std::atomic<uint64_t> Samples{0};
    std::atomic<double> MeanNanos{0};
  };

  PerfModel() = default;
  ~PerfModel() { delete[] More.load(std::memory_order_relaxed); }
  PerfModel(const PerfModel &) = delete;
  PerfModel &operator=(const PerfModel &) = delete;

  /// A launch of Instances took Ns: the mean of the first 16 samples, then
  /// a moving average that follows changes within a few dozen launches.
  void learn(uint64_t Instances, uint64_t Ns) {
    Size &S = at(bucket(Instances));
    uint64_t N = S.Samples.fetch_add(1, std::memory_order_relaxed) + 1;
    double Old = S.MeanNanos.load(std::memory_order_relaxed);
    double Weight = 1.0 / double(std::min<uint64_t>(N, 16));
    S.MeanNanos.store(Old + (double(Ns) - Old) * Weight,
                      std::memory_order_relaxed);
  }
  /// The predicted run time of a launch of Instances; 0 when no launch of
  /// that size was measured (or loaded).
  double predict(uint64_t Instances) const {
    const Size *S = find(bucket(Instances));
    return S && S->Samples.load(std::memory_order_relaxed)
               ? S->MeanNanos.load(std::memory_order_relaxed)
               : 0.0;
  }
  /// Launches measured (or loaded) in Bucket.
  uint64_t samples(unsigned Bucket) const {
    const Size *S = find(Bucket);
    return S ? S->Samples.load(std::memory_order_relaxed) : 0;
  }
  /// Sets Bucket's model (what a model file said).
  void set(unsigned Bucket, uint64_t Samples, double MeanNanos) {
    Size &S = at(Bucket);
    S.Samples.store(Samples, std::memory_order_relaxed);
    S.MeanNanos.store(MeanNanos, std::memory_order_relaxed);
  }
  /// Fn(bucket, samples, mean nanoseconds) for every bucket with samples.
  template <class FnT> void forEach(FnT Fn) const {
    for (unsigned B = 0; B != Buckets; ++B)
      if (const Size *S = find(B))
        if (uint64_t N = S->Samples.load(std::memory_order_relaxed))
          Fn(B, N, S->MeanNanos.load(std::memory_order_relaxed));
  }
  void clear() {
    for (unsigned B = 0; B != Buckets; ++B)
      if (Size *S = const_cast<Size *>(find(B))) {
        S->Samples = 0;
        S->MeanNanos = 0;
      }
  }

private:
  // A leaf usually launches with one or two sizes, and a program of many
  // leaves has a model per leaf and device: two buckets live here, a table
  // of all of them is made when a third shows up (a model of every bucket
  // in every entry took a kilobyte each, and a 10000-leaf program's first
  // launch spent more time on that memory than on scheduling).
  static constexpr uint8_t NoBucket = 0xff;
  std::atomic<uint8_t> InlineBucket[2] = {NoBucket, NoBucket};
  Size Inline[2];
  std::atomic<Size *> More{nullptr};

  const Size *find(unsigned Bucket) const {
    for (unsigned I = 0; I != 2; ++I)
      if (InlineBucket[I].load(std::memory_order_acquire) == Bucket)
        return &Inline[I];
    Size *Table = More.load(std::memory_order_acquire);
    return Table ? &Table[Bucket] : nullptr;
  }
  /// Bucket's model, made if there is none: an inline slot while one is
  /// free (claimed once, never given back), else the table.
  Size &at(unsigned Bucket) {
    if (const Size *S = find(Bucket))
      return const_cast<Size &>(*S);
    for (unsigned I = 0; I != 2; ++I) {
      uint8_t Free = NoBucket;
      if (InlineBucket[I].compare_exchange_strong(Free, uint8_t(Bucket),
                                                  std::memory_order_acq_rel) ||
          Free == Bucket)
        return Inline[I];
    }
    Size *Table = More.load(std::memory_order_acquire);
    if (!Table) {
      Size *Made = new Size[Buckets];
      if (More.compare_exchange_strong(Table, Made, std::memory_order_acq_rel))
        Table = Made;
      else
        delete[] Made; // another thread's table won
    }
    return Table[Bucket];
  }
};

struct NodeStats {
  NodeStats(std::string Path, std::string Device)
      : Path(std::move(Path)), Device(std::move(Device)) {}
  const std::string Path;
  /// The device name, or "host" for internal nodes (run by the executor).
  const std::string Device;
  std::atomic<uint64_t> Launches{0};
  std::atomic<uint64_t> Instances{0};
  /// Run time: from the kernel's start to its end, without compiling it or
  /// moving its data.
  std::atomic<uint64_t> Nanos{0};
  /// Bytes copied into the node's memory space so that it could run there
  /// (for a graph's "host" entry: copied home at the end of its launches),
  /// and the time spent compiling or loading its artifact on the device.
  std::atomic<uint64_t> BytesIn{0};
  std::atomic<uint64_t> CompileNanos{0};
  /// Launches run in place and not timed, and their instances: those that
  /// generated code ran itself at an armed launch site (hpvm_launch_site),
  /// and small ones the executor ran on the calling thread without
  /// learning from them (UntimedLeft). Not in the counts above (rows()
  /// adds them), nor in Nanos.
  std::atomic<uint64_t> DirectLaunches{0}, DirectInstances{0};
  /// How many more launches of at most UntimedLimit instances the executor
  /// may run untimed on the host CPU (Executor::runLeaf): set after a timed
  /// one that ran on the calling thread with a settled cost, like a launch
  /// site's budget.
  std::atomic<int64_t> UntimedLeft{0};
  std::atomic<uint64_t> UntimedLimit{0};
  /// Launches of the leaf this device failed and another device ran
  /// (Executor::fallBack): once it has, the device gets none of the leaf's
  /// launches while another can take them.
  std::atomic<uint64_t> FailedLaunches{0};
  /// Once set, for good (Stats::reset keeps it: statistics do not change
  /// where things run).
  std::atomic<bool> Failed{false};
  bool failedHere() const { return Failed.load(std::memory_order_relaxed); }

  /// What one instance costs on one thread, in nanoseconds (0: not known),
  /// learned from the leaf's launches on a host-thread device: a launch
  /// run on one thread tells it, one shared among several tells it by its
  /// pieces' times summed, or bounds it by its time times the threads.
  std::atomic<double> SerialNanosPerInstance{0};
  /// Run times by size, for dmda and auto; loaded from and saved to the
  /// runtime's model file (RuntimeConfig::PerfModelsPath) when it has one.
  PerfModel Model;

  void record(uint64_t NumInstances, uint64_t Ns) {
    Launches.fetch_add(1, std::memory_order_relaxed);
    Instances.fetch_add(NumInstances, std::memory_order_relaxed);
    Nanos.fetch_add(Ns, std::memory_order_relaxed);
  }
  /// Learns SerialNanosPerInstance from a launch of NumInstances that took
  /// Ns, run by the device on HostThreads host threads (0: not a host
  /// device) whose pieces took WorkNs in all (0: not timed). A launch that
  /// was cheaper than the estimate is believed at once; a dearer one
  /// counts a quarter, and at most four times the estimate, as threads
  /// the system preempted make a launch look dearer than it is, never
  /// cheaper. A real rise is still followed within a few launches.
  void learnSerialCost(uint64_t NumInstances, uint64_t Ns, unsigned HostThreads,
                       uint64_t WorkNs = 0) {
    if (!NumInstances || !HostThreads)
      return;
    double Work = HostThreads == 1 ? double(Ns)
                  : WorkNs         ? double(WorkNs)
                                   : double(Ns) * HostThreads;
    double Sample = Work / double(NumInstances);
    double Old = SerialNanosPerInstance.load(std::memory_order_relaxed);
    double New = Old > 0 && Sample > Old
                     ? Old + (std::min(Sample, 4 * Old) - Old) / 4
                     : Sample;
    SerialNanosPerInstance.store(New, std::memory_order_relaxed);
  }
  /// The estimate for a launch of NumInstances (0: not known).
  uint64_t serialNanos(uint64_t NumInstances) const {
    double PerInstance = SerialNanosPerInstance.load(std::memory_order_relaxed);
    double Total = PerInstance * double(NumInstances);
    if (!(Total > 0))
      return 0;
    return Total >= 1.8e19 ? UINT64_MAX : std::max<uint64_t>(1, Total);
  }
};

/// What coherence copied of one buffer, named "<graph>:<parameter>" after
/// the root parameter it is passed as.
struct BufferStats {
  explicit BufferStats(std::string Name) : Name(std::move(Name)) {}
  const std::string Name;
  std::atomic<uint64_t> ToDevices{0}, ToHost{0};
};

class Stats {
public:
  struct Row {
    std::string Path, Device;
    /// Launches and Instances include the direct ones (DirectLaunches,
    /// DirectInstances), which Nanos does not time.
    uint64_t Launches, Instances, Nanos, BytesIn, CompileNanos;
    uint64_t DirectLaunches, DirectInstances;
    /// Launches that failed here and ran elsewhere, and the first error.
    uint64_t FailedLaunches;
    std::string Failure;
  };
  struct BufferRow {
    std::string Name;
    uint64_t ToDevices, ToHost;
  };

  /// The entry for Path on Device, created on first use.
  NodeStats &entry(const std::string &Path, const std::string &Device);
  /// The entry for buffer Name, created on first use.
  BufferStats &buffer(const std::string &Name);

  /// Entries that have run or moved data, by path then device.
  std::vector<Row> rows() const;
  /// E's device failed a launch of its leaf with Error, and another device
  /// will run it: counts it; true for the first such failure of E (which
  /// keeps Error for the statistics).
  bool recordFailure(NodeStats &E, const std::string &Error);
  /// Buffers something was copied of, by name.
  std::vector<BufferRow> bufferRows() const;
  /// The table hpvm_print_stats writes; Header is its first line.
  std::string format(const std::string &Header, const Coherence &C) const;
  /// Zeroes every entry (their addresses stay valid), models included.
  void reset();

  /// Reads the performance models in file Path (written by saveModels),
  /// to seed the entries they name, now and when they are made. A missing
  /// file is no model; lines that mean nothing are skipped. Returns a note
  /// for what was skipped, or "".
  std::string loadModels(const std::string &Path);
  /// Writes every model with samples to Path (through a temporary file and
  /// a rename, so that processes finishing at once leave one whole file);
  /// returns why it could not, or "".
  std::string saveModels(const std::string &Path) const;
  /// A device's measured link bandwidths (bytes per second, host to device
  /// and back), kept with the models by the device's description: false if
  /// none is known.
  bool link(const std::string &Device, double &Up, double &Down) const;
  void setLink(const std::string &Device, double Up, double Down);

private:
  mutable std::mutex M;
  std::deque<NodeStats> Entries;
  /// (path, device) -> entry; hashed, since a program of many nodes makes
  /// as many entries at load (rows() sorts).
  struct KeyHash {
    size_t operator()(const std::pair<std::string, std::string> &K) const {
      return std::hash<std::string>()(K.first) * 31 +
             std::hash<std::string>()(K.second);
    }
  };
  std::unordered_map<std::pair<std::string, std::string>, NodeStats *, KeyHash>
      Index;
  std::deque<BufferStats> Buffers;
  std::map<std::string, BufferStats *> BufferIndex;
  /// Loaded models of entries not made yet: (path, device) -> (bucket,
  /// samples, mean).
  std::map<std::pair<std::string, std::string>,
           std::vector<std::tuple<unsigned, uint64_t, double>>>
      PendingModels;
  /// Device description -> (up, down) bytes per second.
  std::map<std::string, std::pair<double, double>> Links;
  /// The first error of each entry with FailedLaunches.
  std::map<const NodeStats *, std::string> Failures;
};

} // namespace hpvm::rt

#endif // HPVM_RT_STATS_H
