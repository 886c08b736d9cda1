package io.batchconsumer.core.exactlyonce;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.batchconsumer.core.MessageSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The exactly-once source wraps the transport's: every method of {@link MessageSource}, defaults
 * included, must reach the transport's source (a default left in place would answer for it, for
 * instance that a partition is never behind, which turns the idle commits on again).
 */
class CompletingSourceTests {

	@Test
	void everyMethodOfTheSourceInterfaceIsPassedOn() throws NoSuchMethodException {
		List<String> inherited = new ArrayList<>();
		for (Method method : MessageSource.class.getMethods()) {
			Method own = CompletingSource.class.getMethod(method.getName(), method.getParameterTypes());
			if (own.getDeclaringClass() != CompletingSource.class) {
				inherited.add(method.getName() + Arrays.toString(method.getParameterTypes()));
			}
		}
		assertThat(inherited).isEmpty();
	}

}
