MyType = "Scheduler"
Name = "htcuser@node.example.org"
Machine = "node.example.org"
TotalRunningJobs = 0
TotalIdleJobs = 0
TotalHeldJobs = 0
TotalJobAds = 0
ShadowsRunning = 0
TotalSchedulerJobsRunning = 0
TotalSchedulerJobsIdle = 0
RecentJobsCompleted = 0
RecentJobsStarted = 0

MyType = "Submitter"
Name = "htcuser@node.example.org"
Machine = "node.example.org"
RunningJobs = 1
IdleJobs = 2
HeldJobs = 0

MyType = "Submitter"
Name = "bob@node.example.org"
Machine = "node.example.org"
RunningJobs = 1
IdleJobs = 0
HeldJobs = 1

MyType = "Negotiator"
Name = "htcuser@node.example.org"
Machine = "node.example.org"
LastNegotiationCycleEnd0 = 1795308570
LastNegotiationCycleDuration0 = 0
LastNegotiationCycleCandidateSlots0 = 1
LastNegotiationCycleActiveSubmitterCount0 = 0
LastNegotiationCycleNumSchedulers0 = 0
LastNegotiationCycleNumIdleJobs0 = 0
LastNegotiationCycleMatches0 = 0
LastNegotiationCycleRejections0 = 0

MyType = "Collector"
Name = "My Pool - 127.0.0.1@node.example.org"
Machine = "node.example.org"
RunningJobs = 0
IdleJobs = 0
HostsTotal = 1
