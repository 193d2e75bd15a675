package dev.baton.testkit;

import dev.baton.testservers.TestServer;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.support.ParameterDeclarations;

/**
 * The servers a suite marked {@link OnEachServer} runs on: those of the nearest enclosing test class's {@link
 * CompatibilityServers}, in its order, that the suite's {@link RunsOn} names (all of them without one).
 */
public final class SuiteServers implements ArgumentsProvider {
    /** Created by JUnit. */
    public SuiteServers() {}

    @Override
    public Stream<? extends Arguments> provideArguments(ParameterDeclarations parameters, ExtensionContext context) {
        Class<?> suite = context.getRequiredTestClass();
        TestServer[] servers = compatibilityServers(context)
                .orElseThrow(() -> new IllegalStateException(suite.getName() + " is marked OnEachServer but no"
                        + " enclosing test class has CompatibilityServers"));
        RunsOn only = BatonDatabaseExtension.findRunsOn(suite);
        List<TestServer> allowed = only == null ? null : Arrays.asList(only.value());
        return Arrays.stream(servers)
                .filter(s -> allowed == null || allowed.contains(s))
                .map(Arguments::of);
    }

    private static Optional<TestServer[]> compatibilityServers(ExtensionContext context) {
        for (Optional<ExtensionContext> c = context.getParent();
                c.isPresent();
                c = c.get().getParent()) {
            Optional<CompatibilityServers> servers =
                    c.get().getTestClass().map(type -> type.getAnnotation(CompatibilityServers.class));
            if (servers.isPresent()) {
                return Optional.of(servers.get().value());
            }
        }
        return Optional.empty();
    }
}
