import Testing

@testable import SoundtraceTools

@Suite struct OrderedWorkTests {
    final class Output: Sendable {
        let index: Int
        init(_ index: Int) { self.index = index }
    }

    struct Refused: Error, Sendable { let index: Int }

    @Test func outputsComeInIndexOrderWhateverTheThreads() {
        for threads in [1, 2, 5] {
            let work = OrderedWork<Output, Refused>(count: 40) { .success(Output($0)) }
            var finished: [Int] = []
            let outcome = work.run(threads: threads) { index, _ in finished.append(index) }
            guard case let .success(outputs) = outcome else {
                Issue.record("\(threads) threads: \(outcome)")
                continue
            }
            #expect(outputs.map(\.index) == Array(0..<40), "\(threads) threads")
            #expect(finished.sorted() == Array(0..<40), "each item is reported once as it finishes")
        }
    }

    @Test func theFirstFailureInIndexOrderIsTheOneReturned() {
        let work = OrderedWork<Output, Refused>(count: 30) { i in i == 7 || i == 20 ? .failure(Refused(index: i)) : .success(Output(i)) }
        guard case let .failure(refused) = work.run(threads: 3, finished: { _, _ in }) else {
            Issue.record("a failing item fails the run")
            return
        }
        #expect(refused.index == 7)
    }

    /// `catalog build` lets a recording's landmarks go once the index holds them (at 100 hours,
    /// hundreds of MB): that frees nothing if the work still holds the outputs it handed over.
    @Test func theOutputsAreHandedOverNotKept() {
        let work = OrderedWork<Output, Refused>(count: 8) { .success(Output($0)) }
        weak var first: Output?
        do {
            guard case let .success(outputs) = work.run(threads: 2, finished: { _, _ in }) else {
                Issue.record("nothing fails here")
                return
            }
            withExtendedLifetime(outputs) {
                first = outputs.first
                #expect(first?.index == 0)
            }
        }
        #expect(first == nil, "once the caller lets go of the outputs, they are freed while the work lives on")
        withExtendedLifetime(work) {}
    }
}
