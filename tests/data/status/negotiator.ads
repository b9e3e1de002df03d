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

