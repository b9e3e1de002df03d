MyType = "Collector"
Name = "My Pool - 127.0.0.1@node.example.org"
Machine = "node.example.org"
RunningJobs = 0
IdleJobs = 0
HostsTotal = 1

