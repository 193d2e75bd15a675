package dev.baton.internal.worker;

import dev.baton.ConfigurationException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * Virtual threads for a worker's handlers, reached through method handles: core is compiled with {@code --release 17},
 * where {@code Thread.ofVirtual()} and {@code Executors.newThreadPerTaskExecutor} do not exist. Thread-safe.
 */
public final class VirtualThreads {
    /** The first JDK where virtual threads are final (JEP 444); on 19 and 20 they are a preview that needs a flag. */
    static final int SINCE = 21;

    /** {@code Thread.ofVirtual()}, or null below {@link #SINCE}. */
    private static final MethodHandle OF_VIRTUAL;
    /** {@code Thread.Builder.OfVirtual.name(String prefix, long start)}. */
    private static final MethodHandle NAME;
    /** {@code Thread.Builder.factory()}. */
    private static final MethodHandle FACTORY;
    /** {@code Executors.newThreadPerTaskExecutor(ThreadFactory)}. */
    private static final MethodHandle PER_TASK;
    /** Why they are not available, or null. */
    private static final String UNAVAILABLE;

    static {
        MethodHandle ofVirtual = null;
        MethodHandle name = null;
        MethodHandle factory = null;
        MethodHandle perTask = null;
        String why = null;
        int feature = Runtime.version().feature();
        if (feature < SINCE) {
            why = "virtualThreads() needs JDK " + SINCE + " or later; this JVM is " + Runtime.version();
        } else {
            try {
                MethodHandles.Lookup lookup = MethodHandles.publicLookup();
                Class<?> builder = Class.forName("java.lang.Thread$Builder");
                Class<?> ofVirtualBuilder = Class.forName("java.lang.Thread$Builder$OfVirtual");
                ofVirtual = lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtualBuilder));
                name = lookup.findVirtual(
                        ofVirtualBuilder, "name", MethodType.methodType(ofVirtualBuilder, String.class, long.class));
                factory = lookup.findVirtual(builder, "factory", MethodType.methodType(ThreadFactory.class));
                perTask = lookup.findStatic(
                        Executors.class,
                        "newThreadPerTaskExecutor",
                        MethodType.methodType(ExecutorService.class, ThreadFactory.class));
            } catch (ReflectiveOperationException e) {
                why = "virtualThreads(): this JVM (" + Runtime.version() + ") lacks " + e.getMessage();
                ofVirtual = null;
            }
        }
        OF_VIRTUAL = ofVirtual;
        NAME = name;
        FACTORY = factory;
        PER_TASK = perTask;
        UNAVAILABLE = why;
    }

    private VirtualThreads() {}

    /** True on a JVM that has virtual threads (21 or later). */
    public static boolean available() {
        return UNAVAILABLE == null;
    }

    /**
     * Refuses virtual threads on a JVM without them.
     *
     * @param where what asked, for the message (a queue's name)
     * @throws ConfigurationException below JDK 21
     */
    public static void require(String where) {
        if (UNAVAILABLE != null) {
            throw new ConfigurationException(
                    UNAVAILABLE + " (" + where + "); leave it out, or run on JDK " + SINCE + " or later");
        }
    }

    /**
     * An executor that starts a new virtual thread for every task, named {@code prefix0}, {@code prefix1}, ...; the
     * caller shuts it down.
     *
     * @throws ConfigurationException below JDK 21
     */
    static ExecutorService perTaskExecutor(String prefix) {
        require("threads '" + prefix + "'");
        try {
            Object builder = NAME.invoke(OF_VIRTUAL.invoke(), prefix, 0L);
            ThreadFactory threads = (ThreadFactory) FACTORY.invoke(builder);
            return (ExecutorService) PER_TASK.invoke(threads);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("could not create a virtual-thread executor", t);
        }
    }
}
