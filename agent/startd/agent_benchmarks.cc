// RunBenchmarks: Mips and KFlops measured in a forked child (the kernels keep a CPU busy for
// half a second; the loop must not), read back through a pipe into the machine facts.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "agent/core/log.h"
#include "agent/startd/agent.h"
#include "hal/benchmark.h"

namespace kite::agent {

// One benchmark child and the pipe its result comes back on.
struct BenchmarkRun {
  uv_pipe_t pipe{};
  pid_t pid = 0;
  std::string out;
  Agent* agent = nullptr;
};

namespace {

constexpr int kKernelMs = 250;  // per kernel

void close_run(BenchmarkRun* b) {
  if (b->pid > 0) {
    int status;
    ::kill(b->pid, SIGKILL);
    while (::waitpid(b->pid, &status, 0) < 0 && errno == EINTR) {
    }
    b->pid = 0;
  }
  uv_close(reinterpret_cast<uv_handle_t*>(&b->pipe),
           [](uv_handle_t* h) { delete static_cast<BenchmarkRun*>(h->data); });
}

}  // namespace

void Agent::run_benchmarks() {
  if (benchmark_) return;  // one at a time; the running one reports
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    KLOG_WARN("benchmarks: pipe: %s", std::strerror(errno));
    return;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    KLOG_WARN("benchmarks: fork: %s", std::strerror(errno));
    ::close(fds[0]);
    ::close(fds[1]);
    return;
  }
  if (pid == 0) {
    // The child only computes and writes: nothing of the loop is touched here.
    ::close(fds[0]);
    char buf[64];
    int n = std::snprintf(buf, sizeof buf, "%lld %lld\n",
                          static_cast<long long>(hal::benchmark_mips(kKernelMs)),
                          static_cast<long long>(hal::benchmark_kflops(kKernelMs)));
    ssize_t w = ::write(fds[1], buf, static_cast<size_t>(n));
    ::_exit(w == n ? 0 : 1);
  }
  ::close(fds[1]);
  auto* b = new BenchmarkRun;
  b->pid = pid;
  b->agent = this;
  uv_pipe_init(&loop_, &b->pipe, 0);
  b->pipe.data = b;
  uv_pipe_open(&b->pipe, fds[0]);
  benchmark_ = b;
  uv_read_start(
      reinterpret_cast<uv_stream_t*>(&b->pipe),
      [](uv_handle_t*, size_t, uv_buf_t* buf) {
        static char space[128];
        *buf = uv_buf_init(space, sizeof space);
      },
      [](uv_stream_t* st, ssize_t n, const uv_buf_t* buf) {
        auto* b = static_cast<BenchmarkRun*>(st->data);
        if (n > 0) {
          if (b->out.size() < 256) b->out.append(buf->base, static_cast<size_t>(n));
          return;
        }
        if (n == 0) return;
        uv_read_stop(st);
        b->agent->benchmarks_done(b);
      });
}

void Agent::benchmarks_done(BenchmarkRun* b) {
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(b->pid, &status, 0);  // it has closed its end: it is exiting
  } while (r < 0 && errno == EINTR);
  b->pid = 0;
  long long mips = 0, kflops = 0;
  bool ok = r > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
            std::sscanf(b->out.c_str(), "%lld %lld", &mips, &kflops) == 2 && mips > 0 && kflops > 0;
  benchmark_ = nullptr;
  close_run(b);
  if (!ok) {
    KLOG_WARN("benchmarks: the benchmark child failed; Mips and KFlops unchanged");
    return;
  }
  KLOG_INFO("benchmarks: Mips %lld, KFlops %lld", mips, kflops);
  facts_.mips = static_cast<double>(mips);
  facts_.kflops = static_cast<double>(kflops);
  sd_->update_facts(facts_);
  evaluate();
}

void Agent::stop_benchmarks() {
  if (!benchmark_) return;
  close_run(benchmark_);
  benchmark_ = nullptr;
}

}  // namespace kite::agent
