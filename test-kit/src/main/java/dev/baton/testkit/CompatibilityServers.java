package dev.baton.testkit;

import dev.baton.testservers.TestServer;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The servers of a dialect's compatibility test (a subclass of {@link dev.baton.testkit.compat.AbstractCompatibilityTest}):
 * each of its suites runs once on each of them that the suite's {@link RunsOn} names (on all of them when it has
 * none), in this order.
 *
 * <pre>
 * &#64;CompatibilityServers({TestServer.POSTGRES_LOCAL, TestServer.POSTGRES_EMBEDDED})
 * class PostgresCompatibilityTest extends AbstractCompatibilityTest {}</pre>
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface CompatibilityServers {
    /**
     * The servers, in the order the suites run on them.
     *
     * @return at least one server
     */
    TestServer[] value();
}
