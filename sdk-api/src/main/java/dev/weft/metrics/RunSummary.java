package dev.weft.metrics;

import java.util.Map;

/** {@code summary.json}: what a run did, in one object. */
public record RunSummary(String status, long steps, int worldSize, Map<String, Integer> mesh, double initialLoss,
                         double finalLoss, double tokensPerS, double stepMsMedian, double modelFlopsPerS, double wallS,
                         boolean replicasConsistent, long parameters, String error) {}
