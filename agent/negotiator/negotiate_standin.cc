// A stand-in for negotiator::negotiate() so the CM's runner and the claiming protocol can be
// tested before the real negotiator (policy/negotiator/) merges: submitters round-robin, each
// submitter's jobs by JobPrio then QDate, first fit, partitionable slots by Cpus/Memory/Disk.
// The lead deletes this file when the real one arrives.
#include <algorithm>

#include "policy/classad/match.h"
#include "policy/negotiator/negotiator.h"

namespace kite::negotiator {

namespace {

struct SlotLeft {
  classad::ClassAd* ad;
  std::string name, machine;
  bool partitionable = false;
  bool used = false;
  double cpus = 0, memory = 0, disk = 0;
};

double num(const classad::ClassAd& ad, const char* name, double def) {
  double v = def;
  return ad.evaluate_real(name, v) ? v : def;
}

}  // namespace

CycleResult negotiate(const CycleInput& in) {
  CycleResult res;
  std::vector<SlotLeft> slots;
  for (const classad::AdPtr& a : in.slots) {
    SlotLeft s;
    s.ad = a.get();
    std::string state;
    a->evaluate_string("Name", s.name);
    a->evaluate_string("Machine", s.machine);
    a->evaluate_bool("PartitionableSlot", s.partitionable);
    a->evaluate_string("State", state);
    if (state != "Unclaimed") continue;
    s.cpus = num(*a, "Cpus", 0);
    s.memory = num(*a, "Memory", 0);
    s.disk = num(*a, "Disk", 0);
    slots.push_back(s);
  }
  // Each submitter's jobs in its order.
  std::vector<std::vector<const IdleJob*>> queues;
  for (const Submitter& sub : in.submitters) {
    std::vector<const IdleJob*> q;
    for (const IdleJob& j : sub.jobs) q.push_back(&j);
    std::stable_sort(q.begin(), q.end(), [](const IdleJob* a, const IdleJob* b) {
      double pa = num(*a->ad, "JobPrio", 0), pb = num(*b->ad, "JobPrio", 0);
      if (pa != pb) return pa > pb;
      double qa = num(*a->ad, "QDate", 0), qb = num(*b->ad, "QDate", 0);
      if (qa != qb) return qa < qb;
      return a->cluster != b->cluster ? a->cluster < b->cluster : a->proc < b->proc;
    });
    queues.push_back(std::move(q));
    res.submitters.push_back({sub.name, 0, 0});
  }
  std::vector<size_t> next(queues.size(), 0);
  for (bool any = true; any;) {
    any = false;
    for (size_t i = 0; i < queues.size(); ++i) {
      if (next[i] >= queues[i].size()) continue;
      any = true;
      const IdleJob* j = queues[i][next[i]++];
      double cpus = num(*j->ad, "RequestCpus", 1), mem = num(*j->ad, "RequestMemory", 0),
             disk = num(*j->ad, "RequestDisk", 0);
      SlotLeft* pick = nullptr;
      for (SlotLeft& s : slots) {
        if (s.used || cpus > s.cpus || mem > s.memory || disk > s.disk) continue;
        classad::MatchPair mp(*j->ad, *s.ad);
        if (!mp.symmetric()) continue;
        pick = &s;
        break;
      }
      if (!pick) {
        res.submitters[i].rejected++;
        continue;
      }
      if (pick->partitionable) {
        pick->cpus -= cpus;
        pick->memory -= mem;
        pick->disk -= disk;
      } else {
        pick->used = true;
      }
      res.submitters[i].matched++;
      Match m;
      m.cluster = j->cluster;
      m.proc = j->proc;
      m.submitter = in.submitters[i].name;
      m.slot = pick->name;
      m.machine = pick->machine;
      m.partitionable = pick->partitionable;
      m.reason = "idle";
      res.matches.push_back(std::move(m));
    }
  }
  return res;
}

}  // namespace kite::negotiator
