package dev.baton.testkit;

import dev.baton.testservers.TestServer;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.support.ParameterDeclarations;

/**
 * The server a suite marked {@link OnEachServer} runs on in a run of its compatibility test: the run's server (the
 * {@link TestServer} argument of the enclosing {@code @ParameterizedClass}, see {@link CompatibilityServers}) when the
 * suite's {@link RunsOn} names it or the suite has none; else none, and the suite has no run there.
 */
public final class SuiteServers implements ArgumentsProvider {
    /** Created by JUnit. */
    public SuiteServers() {}

    @Override
    public Stream<? extends Arguments> provideArguments(ParameterDeclarations parameters, ExtensionContext context) {
        Class<?> suite = context.getRequiredTestClass();
        TestServer server = runServer(context);
        if (server == null) {
            throw new IllegalStateException(suite.getName() + " is marked OnEachServer but is not nested in a run of a"
                    + " test with CompatibilityServers");
        }
        RunsOn only = BatonDatabaseExtension.findRunsOn(suite);
        if (only != null && !Arrays.asList(only.value()).contains(server)) {
            return Stream.empty();
        }
        return Stream.of(Arguments.of(server));
    }

    /**
     * The server of the enclosing run of a test with {@link CompatibilityServers}: its runs are those servers in
     * order, so the run's index (the last segment of its unique id, {@code [class-template-invocation:#2]}) names it.
     */
    private static TestServer runServer(ExtensionContext context) {
        for (Optional<ExtensionContext> c = context.getParent();
                c.isPresent();
                c = c.get().getParent()) {
            String[] segment = c.get()
                    .getUniqueId()
                    .replaceAll(".*/\\[", "")
                    .replace("]", "")
                    .split(":#", 2);
            CompatibilityServers servers = c.get()
                    .getTestClass()
                    .map(type -> type.getAnnotation(CompatibilityServers.class))
                    .orElse(null);
            if (servers != null && segment.length == 2 && segment[0].equals("class-template-invocation")) {
                return servers.value()[Integer.parseInt(segment[1]) - 1];
            }
        }
        return null;
    }
}
