package io.batchconsumer.core.exactlyonce;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.SliceListener;
import io.batchconsumer.core.spi.DeadLetterSink;
import io.batchconsumer.core.spi.MessageSource;
import io.batchconsumer.core.spi.RetryQueue;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The exactly-once wrappers pass every method on. The source wraps the transport's: every method of
 * {@link MessageSource}, defaults included, must reach the transport's source (a default left in place would answer for it, for
 * instance that a partition is never behind, which turns the idle commits on again).
 */
class CompletingSourceTests {

	@Test
	void everyMethodOfTheSourceInterfaceIsPassedOn() throws NoSuchMethodException {
		assertThat(inherited(MessageSource.class, CompletingSource.class)).isEmpty();
	}

	/** A default left in place would drop the delivery's partition epoch, and with it the fence. */
	@Test
	void theListenerTheSinkAndTheRetryQueueTakeEveryMethodThatCarriesTheEpoch() throws NoSuchMethodException {
		assertThat(inherited(SliceListener.class, ExactlyOnceListener.class)).isEmpty();
		assertThat(inherited(DeadLetterSink.class, CompletingDeadLetterSink.class)).isEmpty();
		assertThat(inherited(RetryQueue.class, CompletingRetryQueue.class)).isEmpty();
	}

	private static List<String> inherited(Class<?> type, Class<?> wrapper) throws NoSuchMethodException {
		List<String> inherited = new ArrayList<>();
		for (Method method : type.getMethods()) {
			if (Modifier.isStatic(method.getModifiers())) {
				continue;
			}
			Method own = wrapper.getMethod(method.getName(), method.getParameterTypes());
			if (own.getDeclaringClass() != wrapper) {
				inherited.add(method.getName() + Arrays.toString(method.getParameterTypes()));
			}
		}
		return inherited;
	}

}
