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

