package io.batchconsumer.core;

import java.lang.reflect.Method;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a container's workers run on. Either way the pool holds {@link ContainerOptions#threadSize()}
 * workers, so thread-size stays the bound on concurrent slices; virtual threads make a large
 * thread-size cheap for listeners that mostly wait.
 *
 * <p>Virtual threads need Java 21 or later; they are created reflectively
 * ({@code Thread.ofVirtual()}) because this library is compiled for Java 17.
 */
public enum WorkerThreads {

	/** Platform (operating-system) threads, the default. */
	PLATFORM,

	/** Virtual threads (Java 21 or later). */
	VIRTUAL;

	/**
	 * Whether this JVM has virtual threads.
	 * @return {@code true} on Java 21 or later
	 */
	public static boolean isVirtualAvailable() {
		return Runtime.version().feature() >= 21;
	}

	/**
	 * A factory of named worker threads ({@code <prefix>1}, {@code <prefix>2}, ...).
	 * @param prefix the name prefix
	 * @return the factory
	 * @throws IllegalStateException for {@link #VIRTUAL} on a JVM before Java 21
	 */
	public ThreadFactory factory(String prefix) {
		if (this == PLATFORM) {
			AtomicInteger next = new AtomicInteger();
			return (runnable) -> new Thread(runnable, prefix + next.incrementAndGet());
		}
		if (!isVirtualAvailable()) {
			throw new IllegalStateException("Virtual threads need Java 21 or later, but this is Java "
					+ Runtime.version().feature());
		}
		try {
			Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
			Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
			Method name = ofVirtual.getMethod("name", String.class, long.class);
			Object named = name.invoke(builder, prefix, 1L);
			return (ThreadFactory) ofVirtual.getMethod("factory").invoke(named);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("Cannot create virtual threads on Java " + Runtime.version(), ex);
		}
	}

}
