package dev.baton.testkit;

import dev.baton.testservers.TestServer;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.ArgumentsProvider;
import org.junit.jupiter.params.provider.ArgumentsSource;
import org.junit.jupiter.params.support.ParameterDeclarations;

/**
 * The servers of a dialect's compatibility test (a subclass of {@link dev.baton.testkit.compat.AbstractCompatibilityTest}),
 * which runs once per server, in this order (a {@code @ParameterizedClass}; its {@code @Parameter} is the base's
 * field): in each run, each suite that the run's server is one of its {@link RunsOn}'s (every suite without one) runs
 * on it; the others have no run there ({@link OnEachServer}).
 *
 * <pre>
 * &#64;CompatibilityServers({TestServer.POSTGRES_LOCAL, TestServer.POSTGRES_EMBEDDED})
 * class PostgresCompatibilityTest extends AbstractCompatibilityTest {}</pre>
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ParameterizedClass(name = "{0}")
@ArgumentsSource(CompatibilityServers.Servers.class)
public @interface CompatibilityServers {
    /**
     * The servers, in the order the suites run on them.
     *
     * @return at least one server
     */
    TestServer[] value();

    /** The arguments of the runs: the annotated class's servers. */
    final class Servers implements ArgumentsProvider {
        /** Created by JUnit. */
        public Servers() {}

        @Override
        public Stream<? extends Arguments> provideArguments(
                ParameterDeclarations parameters, ExtensionContext context) {
            Class<?> test = context.getRequiredTestClass();
            CompatibilityServers servers = test.getAnnotation(CompatibilityServers.class);
            if (servers == null) {
                throw new IllegalStateException(test.getName() + " has no CompatibilityServers");
            }
            return Arrays.stream(servers.value()).map(Arguments::of);
        }
    }
}
