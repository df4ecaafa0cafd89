// The names of the exporter worker's protocol (worker/PROTOCOL.md, "Ops"): its ops, their requests' keys,
// their answers' keys and a tensor's keys, the one place the C++ side spells them (the exporter client, the
// tensor wire and the stages that build a request or read an answer). A protocol key is not a record key,
// even where the two are spelled alike: what the stages copy from an answer into a record is keyed by the
// record vocabulary (base/record_vocabulary.h). The worker itself (worker/nnx_worker.py) spells its side.
#pragma once

namespace nnx::worker_protocol {

// ---- ops and the keys every request and answer has --------------------------------------------------------

inline constexpr const char* kOp = "op";
inline constexpr const char* kOpDependencies = "dependencies";
inline constexpr const char* kOpExport = "export";
inline constexpr const char* kOpReference = "reference";
inline constexpr const char* kOpCheck = "check";
inline constexpr const char* kOpModuleExport = "module_export";        // a module profile's export (forked child)
inline constexpr const char* kOpModuleReference = "module_reference";  // execute --reference torch of a module record
inline constexpr const char* kOpModuleIntermediates = "module_intermediates";  // localisation: PyTorch's values
inline constexpr const char* kOpReferenceIntermediates = "reference_intermediates";  // localisation: the built-in net's
inline constexpr const char* kOpGraphIntermediates = "graph_intermediates";  // localisation: ONNX's reference evaluator's
inline constexpr const char* kOk = "ok";
inline constexpr const char* kError = "error";  // an ok:false answer's message; check's checker error

// ---- dependencies ---------------------------------------------------------------------------------------

inline constexpr const char* kModules = "modules";              // request
inline constexpr const char* kEnvironment = "environment";      // answer
inline constexpr const char* kVersions = "versions";            // answer
inline constexpr const char* kProblems = "problems";            // answer
inline constexpr const char* kImportSeconds = "import_seconds";  // answer

// ---- export and reference: the network (both requests) ------------------------------------------------------

inline constexpr const char* kModel = "model";            // the model config, without its weights
inline constexpr const char* kParameters = "parameters";  // named tensors

// ---- export ---------------------------------------------------------------------------------------------------

inline constexpr const char* kExporter = "exporter";           // request
inline constexpr const char* kOptions = "options";             // request
inline constexpr const char* kExampleInput = "example_input";  // request
inline constexpr const char* kOutputDir = "output_dir";        // request
inline constexpr const char* kModelFile = "model_file";        // request
inline constexpr const char* kException = "exception";         // answer
inline constexpr const char* kLog = "log";                     // answer
inline constexpr const char* kModelState = "model_state";      // answer
inline constexpr const char* kChanged = "changed";             // answer
inline constexpr const char* kWarnings = "warnings";           // answer
inline constexpr const char* kWroteModel = "wrote_model";      // answer

// ---- reference ------------------------------------------------------------------------------------------------

inline constexpr const char* kInputs = "inputs";    // request: named tensors; check's answer: the graph's inputs
inline constexpr const char* kOutputs = "outputs";  // answer: named tensors; check's answer: the graph's outputs

// ---- check ----------------------------------------------------------------------------------------------------

inline constexpr const char* kPath = "path";                    // request
inline constexpr const char* kOpset = "opset";                  // answer
inline constexpr const char* kIrVersion = "ir_version";         // answer
inline constexpr const char* kProducer = "producer";            // answer
inline constexpr const char* kExternalData = "external_data";  // answer

// ---- a tensor (worker/tensor_wire.h: a reference to a binary frame after the line, tensor_frames.h) --------

inline constexpr const char* kName = "name";      // a named tensor's name
inline constexpr const char* kFrame = "frame";    // a tensor reference: the index of its frame after the line
inline constexpr const char* kFrames = "frames";  // a request's or answer's top level: how many frames follow

// ---- module_export and module_reference (a module profile) ------------------------------------------------
inline constexpr const char* kImported = "imported";  // module_export of an imported file: nothing exported
inline constexpr const char* kBind = "bind";          // its graph inputs' forward parameters, in input order

inline constexpr const char* kFactory = "factory";                // request: as the profile gives it
inline constexpr const char* kFactoryPath = "factory_path";       // request: FILE.py made absolute, or null
inline constexpr const char* kSourceSha256 = "source_sha256";     // module_reference request: the file's bytes must hash to it
inline constexpr const char* kOpsetVersion = "opset_version";     // request
inline constexpr const char* kDims = "dims";                      // request: [[name, [values]]]
inline constexpr const char* kOutputNames = "output_names";       // request (given or null) and answer (used)
inline constexpr const char* kExample = "example";                // request: one tensor per input
inline constexpr const char* kCases = "cases";                    // request: [{name, inputs: [tensor]}]
// module_export request: the precision other than float32 (base/precision.h; left out for float32); answer:
// {name, converter}, what converted the module or its graph (worker/nnx_worker_precision.py)
inline constexpr const char* kPrecision = "precision";
// module_export's case tensors as the files they are stored in (worker/TENSORS.md, "Case tensors as files"): a
// tensor {name, file} relative to output_dir; each case's folders for its outputs and their float64 copies.
inline constexpr const char* kFile = "file";
inline constexpr const char* kOutputsTo = "outputs_to";
inline constexpr const char* kOracleTo = "oracle_to";
inline constexpr const char* kStoreError = "store_error";  // answer: a case tensor the child could not write
inline constexpr const char* kImportError = "import_error";       // answer: the factory's module did not import
inline constexpr const char* kBindError = "bind_error";           // answer: {problem, unknown, parameters}: inputs forward cannot take
inline constexpr const char* kStateProof = "state_proof";  // answer: {gradients: false, why}, when backward could not run
inline constexpr const char* kBinding = "binding";                // answer: [{input, parameter, passed}], unless all by position in order
inline constexpr const char* kModuleIdentity = "module";          // answer: {class, source_sha256, state_sha256}
inline constexpr const char* kDimsInGraph = "dims_in_graph";      // answer: {dim: "dynamic" | "static"}
inline constexpr const char* kGraph = "graph";                    // answer: the graph's inputs and outputs
inline constexpr const char* kReferences = "references";          // answer: [{name, outputs: [tensor]}]
inline constexpr const char* kDType = "dtype";                    // answer: a stored output's dtype name
inline constexpr const char* kShape = "shape";                    // answer: a stored output's shape
inline constexpr const char* kOracle = "oracle";                  // answer: the same in float64, or null
inline constexpr const char* kOracleMissing = "oracle_missing";   // answer: why the oracle is null
inline constexpr const char* kWeights = "weights";                // answer: {kept, transformed, missing}
inline constexpr const char* kStepSeconds = "step_seconds";       // answer: {step: wall seconds}, in step order

// ---- module_intermediates (localisation: stages/localisation.h) --------------------------------------------
inline constexpr const char* kValuesTo = "values_to";      // request: the absolute folder the values are written to
inline constexpr const char* kValues = "values";           // answer: [{name, dtype, shape, file, oracle_file, module, source}]
inline constexpr const char* kOracleFile = "oracle_file";  // answer: a value's float64 file (relative), or null
inline constexpr const char* kModulePath = "module";       // answer: a value's module path, or null
inline constexpr const char* kSourceLine = "source";       // answer: "file:line" of the code that computed it, or null
inline constexpr const char* kOutputIndex = "output_index";  // answer: its position among the graph's outputs, or null
inline constexpr const char* kGranularity = "granularity"; // answer: "node" (dynamo) or "module" (torchscript)
inline constexpr const char* kSkipped = "skipped";         // answer: [{name, why}] values no file could hold

}  // namespace nnx::worker_protocol
