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

