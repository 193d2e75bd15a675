package dev.baton.bench.jmh;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Replicas of three steps inside {@code Transition} and {@code StateTable} as of this writing, so that the hot spots of
 * a profile of {@code apply()} can be given a price. If core changes, these no longer describe it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ReplicaBenchmarks {
    private long id = 1_000_042;
    private final List<Payment> sources = List.of(Payment.PENDING);
    private final Map<String, Object> cache = new ConcurrentHashMap<>(Map.of("0,", "sql"));

    /** The operation text {@code apply()} builds on every call for messages ("transition orders id 1 to PAID"). */
    @Benchmark
    public String operationText() {
        return "transition " + "orders" + " id " + id + " to " + Payment.PAID;
    }

    /** The copies of the source states: {@code EnumSet.of}, then {@code new ArrayList<>(EnumSet.copyOf(…))}. */
    @Benchmark
    public List<Payment> sourceCopies() {
        Set<Payment> from = EnumSet.of(Payment.PENDING);
        return new ArrayList<>(EnumSet.copyOf(from));
    }

    /** Building the SQL cache key as a String and looking it up in a ConcurrentHashMap. */
    @Benchmark
    public Object cacheKeyLookup() {
        StringBuilder key = new StringBuilder();
        for (Payment p : sources) {
            key.append(p.ordinal()).append(',');
        }
        return cache.get(key.toString());
    }
}
