# Job 7.0 of the observed pool (condor_q.better-analyze.txt): request_memory = 999999, never
# matched. Reconstructed from that output and the observed job ads (condor_q.l.full.txt).
ClusterId = 7
ProcId = 0
Owner = "htcuser"
User = "htcuser@node.example.org"
JobStatus = 1
JobUniverse = 5
QDate = 1795308498
Cmd = "/bin/sleep"
Args = "900"
JobPrio = 0
RequestCpus = 1
RequestDisk = 1024
RequestMemory = 999999
Rank = 0.0
Requirements = (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (versionGE(split(TARGET.CondorVersion)[1],"25.12.0") || (TARGET.Disk >= RequestDisk)) && (TARGET.Memory >= RequestMemory) && (TARGET.HasFileTransfer)
LastRejMatchTime = 1795308499
LastRejMatchReason = "no match found"
ServerTime = 1795308499
