package dev.baton.testkit;

import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestServer;
import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.params.ParameterInfo;
import org.opentest4j.TestAbortedException;

/**
 * Gives each {@link DatabaseSuite} its server before each test: the suite's own {@link DatabaseSuite#server()}, else
 * the {@link TestServer} argument of the run of a {@code @ParameterizedClass} it is part of (the suite's own, with
 * {@link OnEachServer}), else the {@link TestServer} field of an enclosing test instance. It runs before the
 * suite's {@code @BeforeEach} methods, so a missing server ends each test as skipped (or failed) with the reason,
 * one by one, and the suite's set-up runs once, lazily. A {@code @TestFactory} of a suite whose server is missing (a
 * skip) still runs, and returns {@link DatabaseSuite#skippedFactory(String)}: one dynamic test skipped with the
 * reason.
 *
 * <p>A suite marked {@link RunsOn} that is given a server it does not name has each of its tests skipped with the
 * reason ({@link OnEachServer} never gives it one: {@link SuiteServers} leaves those out).
 */
public final class BatonDatabaseExtension implements BeforeEachCallback {
    /** Created by JUnit. */
    public BatonDatabaseExtension() {}

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        Object instance = context.getRequiredTestInstance();
        if (!(instance instanceof DatabaseSuite suite)) {
            throw new IllegalStateException(instance.getClass() + " does not extend DatabaseSuite");
        }
        Supplier<TestDatabase> server = suite.server();
        if (server == null) {
            server = parameterServer(context);
        }
        if (server == null) {
            server = enclosingServer(context.getRequiredTestInstances().getAllInstances());
        }
        RunsOn only = findRunsOn(suite.getClass());
        if (only != null
                && server instanceof TestServer named
                && !Arrays.asList(only.value()).contains(named)) {
            Assumptions.abort(skipReason(suite.getClass(), only, named));
        }
        try {
            suite.open(server);
        } catch (TestAbortedException e) {
            // A skipped factory is a container: reports count it as no test at all ("Tests run: 0"). The factory
            // runs instead and returns DatabaseSuite.skippedFactory(...), one dynamic test skipped with the reason.
            if (!context.getRequiredTestMethod().isAnnotationPresent(TestFactory.class)) {
                throw e;
            }
        }
    }

    private static String skipReason(Class<?> suite, RunsOn only, TestServer named) {
        return suite.getSimpleName() + " runs on " + Arrays.toString(only.value()) + " only, not on " + named + ": "
                + only.because();
    }

    /** The {@link TestServer} argument of the nearest enclosing {@code @ParameterizedClass} run, or null. */
    private static TestServer parameterServer(ExtensionContext context) {
        ParameterInfo info = ParameterInfo.get(context);
        if (info == null) {
            return null;
        }
        for (Object argument : info.getArguments().toArray()) {
            if (argument instanceof TestServer server) {
                return server;
            }
        }
        return null;
    }

    /** The suite's {@link RunsOn}, its own or a superclass's; null when it has none. */
    static RunsOn findRunsOn(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            RunsOn only = c.getAnnotation(RunsOn.class);
            if (only != null) {
                return only;
            }
        }
        return null;
    }

    private static TestServer enclosingServer(List<Object> instances) throws IllegalAccessException {
        for (Object outer : instances) {
            for (Class<?> type = outer.getClass(); type != null; type = type.getSuperclass()) {
                for (Field field : type.getDeclaredFields()) {
                    if (field.getType() == TestServer.class) {
                        field.setAccessible(true);
                        TestServer server = (TestServer) field.get(outer);
                        if (server != null) {
                            return server;
                        }
                    }
                }
            }
        }
        throw new IllegalStateException("no server for the suite: override DatabaseSuite.server(), mark it"
                + " OnEachServer, or nest it in a class with a TestServer field (the @Parameter of a"
                + " @ParameterizedClass)");
    }
}
