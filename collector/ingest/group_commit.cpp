#include "collector/ingest/group_commit.h"

#include <pthread.h>

#include <vector>

namespace rdmascope::collector {

GroupCommitter::GroupCommitter(Storage& store, size_t max_batch)
    : store_(store), max_batch_(max_batch == 0 ? 1 : max_batch) {
  checkpointer_ = std::thread(&GroupCommitter::RunCheckpoints, this);
  publisher_ = std::thread(&GroupCommitter::RunPublisher, this);
  writer_ = std::thread(&GroupCommitter::Run, this);
}

GroupCommitter::~GroupCommitter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  writer_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    writer_done_ = true;
  }
  publish_cv_.notify_all();
  publisher_.join();
  {
    std::lock_guard<std::mutex> lock(checkpoint_mu_);
    checkpoint_stop_ = true;
  }
  checkpoint_cv_.notify_all();
  checkpointer_.join();
}

Result<IngestResult> GroupCommitter::Submit(const nlohmann::json& report, int64_t received_at_ms,
                                            std::optional<int64_t> clock_skew_ms,
                                            const std::vector<ProbeInput>* probes,
                                            const std::vector<std::shared_ptr<const ProbeRow>>* rows) {
  Pending p;
  p.item.report = &report;
  p.item.probes = probes;
  p.item.rows = rows;
  p.item.received_at_ms = received_at_ms;
  p.item.clock_skew_ms = clock_skew_ms;
  std::unique_lock<std::mutex> lock(mu_);
  if (stop_) return Result<IngestResult>::Error("collector is stopping; report not stored");
  queue_.push_back(&p);
  work_cv_.notify_one();
  done_cv_.wait(lock, [&] { return p.done; });
  if (!p.item.status.ok()) return p.item.status;
  return p.item.out;
}

uint64_t GroupCommitter::batches() const {
  std::lock_guard<std::mutex> lock(mu_);
  return batches_;
}

uint64_t GroupCommitter::reports() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reports_;
}

void GroupCommitter::Run() {
  pthread_setname_np(pthread_self(), kWriterThreadName);  // shows in top -H and /proc/PID/task/*/comm
  std::vector<Pending*> batch;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      batch.clear();
      while (!queue_.empty() && batch.size() < max_batch_) {
        batch.push_back(queue_.front());
        queue_.pop_front();
      }
    }
    Committed c;
    for (Pending* p : batch) c.items.push_back(std::move(p->item));
    c.batch = std::move(batch);
    batch = {};
    store_.writer.IngestBatch(c.items, &c.update);
    {
      std::lock_guard<std::mutex> lock(mu_);
      committed_.push_back(std::move(c));
    }
    publish_cv_.notify_one();
    // The states an update made here replaced are freed, and the checkpoint
    // thread looks at the WAL.
    (void)store_.read.TakeReplacedStates();
    {
      std::lock_guard<std::mutex> lock(checkpoint_mu_);
      checkpoint_wanted_ = true;
    }
    checkpoint_cv_.notify_one();
  }
}

void GroupCommitter::RunPublisher() {
  pthread_setname_np(pthread_self(), kPublisherThreadName);
  for (;;) {
    Committed c;
    {
      std::unique_lock<std::mutex> lock(mu_);
      publish_cv_.wait(lock, [&] { return writer_done_ || !committed_.empty(); });
      if (committed_.empty()) return;  // the writer stopped and all is answered
      c = std::move(committed_.front());
      committed_.pop_front();
    }
    store_.read.PublishSnapshot(c.update);
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (size_t i = 0; i < c.batch.size(); ++i) {
        c.batch[i]->item = std::move(c.items[i]);
        c.batch[i]->done = true;
      }
      ++batches_;
      reports_ += c.batch.size();
    }
    done_cv_.notify_all();
  }
}

void GroupCommitter::RunCheckpoints() {
  pthread_setname_np(pthread_self(), kCheckpointThreadName);
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(checkpoint_mu_);
      checkpoint_cv_.wait(lock, [&] { return checkpoint_stop_ || checkpoint_wanted_; });
      if (checkpoint_stop_) return;
      checkpoint_wanted_ = false;
    }
    (void)store_.checkpoint.CheckpointWal();  // copies once enough has grown; a failure is tried again after the next batch
  }
}

}  // namespace rdmascope::collector
