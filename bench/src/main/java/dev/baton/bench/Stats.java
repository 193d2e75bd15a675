package dev.baton.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Medians and ranges. */
public final class Stats {
    private Stats() {}

    public static double median(List<Double> values) {
        List<Double> v = new ArrayList<>();
        for (Double d : values) {
            if (d != null && !d.isNaN()) {
                v.add(d);
            }
        }
        if (v.isEmpty()) {
            return Double.NaN;
        }
        Collections.sort(v);
        int n = v.size();
        return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
    }

    static double min(List<Double> values) {
        return values.stream()
                .filter(d -> !d.isNaN())
                .mapToDouble(Double::doubleValue)
                .min()
                .orElse(Double.NaN);
    }

    static double max(List<Double> values) {
        return values.stream()
                .filter(d -> !d.isNaN())
                .mapToDouble(Double::doubleValue)
                .max()
                .orElse(Double.NaN);
    }
}
